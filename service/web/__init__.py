"""The web pages' files: HTML in ``templates/``, CSS and JavaScript modules in ``static/``.

Plain files, no build step: ``service/api/pages.py`` serves them as they are (they are
package data, so an installed Floe serves them too). The pages use only the public JSON API
under ``/v1``, as any client could; docs/guide/web.md describes them.
"""
