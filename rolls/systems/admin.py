"""The admin's part every system with rows of its own writes the same way (its ``admin.py``):
its row of a campaign or a character as an inline of that one's admin page (``OwnRowInline``),
added to the admin as registered (``inline_on``: another system may have added its own)."""

from django.contrib import admin


class OwnRowInline(admin.StackedInline):
    """A system's own row of a campaign or a character (one at most, never deleted alone), on
    its owner's admin page; a subclass names its ``model``."""

    max_num = 1
    can_delete = False


def inline_on(model, *inlines):
    """Register ``model``'s admin again, as it is registered now, with ``inlines`` below its
    own: two systems each add theirs to the campaign's and the character's pages."""
    registered = type(admin.site.get_model_admin(model))
    extended = type(
        f"{model.__name__}Admin",
        (registered,),
        {"inlines": [*registered.inlines, *inlines], "__module__": inlines[0].__module__},
    )
    admin.site.unregister(model)
    admin.site.register(model, extended)
    return extended
