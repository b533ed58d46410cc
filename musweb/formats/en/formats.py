"""English dates that read the same on both sides of the Atlantic: «1 Dec 2026», never
12/01/2026 (Django's American default), and 24-hour times like the Spanish pages."""

DATE_FORMAT = "j M Y"
DATETIME_FORMAT = "j M Y, H:i"
SHORT_DATE_FORMAT = "j M Y"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
TIME_FORMAT = "H:i"  # «from 14:28», beside «1 Dec 2026, 14:28», never «from 2:28 p.m.»
