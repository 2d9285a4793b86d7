# Planning recall's keyword statement cost 2-4 ms for a Chinese query, more than running it: the
# planner estimated the trigram operator (<%) by computing word similarity against every entry of
# content's statistics histogram (100 long texts). With a statistics target of 1 the histogram is
# too short for that, so the operator gets its default selectivity; the plans stay the same
# (docs/bench.md, 2026-12-02).

from django.db import migrations

FORWARD = """
    ALTER TABLE memory_longtermmemory ALTER COLUMN content SET STATISTICS 1;
    ANALYZE memory_longtermmemory (content);
"""
BACKWARD = """
    ALTER TABLE memory_longtermmemory ALTER COLUMN content SET STATISTICS -1;
    ANALYZE memory_longtermmemory (content);
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0004_recall_search_terms")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
