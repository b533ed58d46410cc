"""The site's own date formats per language (Django's FORMAT_MODULE_PATH), where Django's are
not right for players."""
