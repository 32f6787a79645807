"""The web solver: ``python -m formulations.serve`` serves one page (paste or upload a puzzle,
draw one, pick backends, watch them work) and the JSON API it uses (docs/web.md).

Starlette and uvicorn come with the ``web`` extra; they are imported only here."""


def create_app(settings=None):
    """The ASGI application (:func:`formulations.serve.app.create_app`)."""
    from .app import create_app as make
    return make(settings)


__all__ = ["create_app"]
