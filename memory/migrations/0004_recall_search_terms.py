# Keyword recall reads only matching rows: stored English lexemes and a trigram index on the content.

import django.contrib.postgres.fields
import django.contrib.postgres.indexes
import django.db.models.expressions
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0003_forgetting"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="longtermmemory",
            name="search_terms",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.db.models.expressions.RawSQL(
                    "tsvector_to_array(to_tsvector('english'::regconfig, content))", []
                ),
                output_field=django.contrib.postgres.fields.ArrayField(base_field=models.TextField(), size=None),
            ),
        ),
        migrations.AddIndex(
            model_name="longtermmemory",
            index=django.contrib.postgres.indexes.GinIndex(fields=["search_terms"], name="ltm_search_terms_idx"),
        ),
        migrations.AddIndex(
            model_name="longtermmemory",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["content"], name="ltm_content_trgm_idx", opclasses=["gin_trgm_ops"]
            ),
        ),
    ]
