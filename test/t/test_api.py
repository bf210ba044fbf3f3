"""The README's function table is the API: the schema pgbench_lab holds
exactly the objects it lists, no more (an undocumented helper belongs in
pgbench_lab_internal) and no fewer."""
import pathlib
import re

import pytest


README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture(scope="module")
def lab(node):
    return node


def documented():
    """The names in the first column of the README's function table."""
    text = README.read_text()
    table = text[text.index("## Functions"):]
    table = table[:table.index("\n## ", 1)]
    names = set()
    for line in table.splitlines():
        m = re.match(r"\| \[`(?:CALL )?([a-z_]+)", line)
        if m:
            names.add(m.group(1))
    return names


def test_schema_holds_exactly_the_documented_api(lab):
    catalog = {r[0] for r in lab.sql(
        """SELECT p.proname::text FROM pg_proc p WHERE p.pronamespace = 'pgbench_lab'::regnamespace
           UNION
           SELECT c.relname::text FROM pg_class c
            WHERE c.relnamespace = 'pgbench_lab'::regnamespace AND c.relkind IN ('r', 'v', 'm')""")}
    listed = documented()
    assert len(listed) > 30
    assert catalog - listed == set(), "in pgbench_lab but not in the README's table"
    assert listed - catalog == set(), "in the README's table but not in pgbench_lab"
