"""How every Django form of the site renders (settings.FORM_RENDERER): ``{{ form }}`` and
``{{ field.as_field_group }}`` go through templates/forms/, in the site's own look: the label,
the field, its hint once, its errors."""

from django.forms.renderers import TemplatesSetting


class SiteFormRenderer(TemplatesSetting):
    form_template_name = "forms/form.html"
    field_template_name = "forms/field.html"
