"""What a system's own models share (its ``models.py``; no models here: ``rolls.systems`` is
no app): its own row of a campaign, a character or a check, read along with its owner or
defaulted (``own_row``). A leaf of a roll's path, as the models are (tests/rolls/
test_roll_path.py)."""


def own_row(model, owner):
    """``owner``'s row of ``model`` (a system's own row of a campaign, a character or a check:
    a model whose primary key is a ``OneToOneField`` to ``owner``'s), read along with it
    (the system's ``campaign_related``, ``character_related``, ``check_related``), else read
    once; an owner without one (made without the system's ``*_fill``) has the model's
    defaults, unsaved."""
    field = model._meta.pk
    try:
        return getattr(owner, field.remote_field.get_accessor_name())
    except model.DoesNotExist:
        return model(**{field.name: owner})
