"""Static files in production: whitenoise's compressed, hashed files, with the table's native
JavaScript modules importing each other by their hashed names too."""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFiles(CompressedManifestStaticFilesStorage):
    # Without it `import … from "./felt.js"` stays unhashed in main.<hash>.js: a browser could
    # then mix a new main with a module it cached before a deploy.
    support_js_module_import_aggregation = True
