"""Create the PostgreSQL extensions long-term memory needs: pgvector and pg_trgm."""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations
from pgvector.django import VectorExtension


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [VectorExtension(), TrigramExtension()]
