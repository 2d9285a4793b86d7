"""The scenario format: the committed corpus is valid and complete; bad files fail with clear errors."""

import json

import pytest

from chat.evaluation import generator, runner, scenarios
from chat.evaluation.runner import asked_for

CORPUS = generator.HERE
MINIMAL = {"format": 1, "customers": [{"id": "c1", "language": "en", "sessions": [{"turns": ["hi"]}]}]}


def write(tmp_path, data, name="s.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def broken(tmp_path, change):
    data = json.loads(json.dumps(MINIMAL))
    change(data)
    return write(tmp_path, data)


def test_the_committed_corpus_is_valid_and_has_what_the_issue_asks_for():
    files = {f.name: f for f in scenarios.load(CORPUS)}
    customers = [c for f in files.values() for c in f.customers]
    five = [c for c in customers if len(c.sessions) >= 5]
    assert len(five) >= 40
    assert {c.language for c in five} == {"zh", "en"}
    assert "handwritten" in files and "generated" in files
    turns = [t for c in customers for s in c.sessions for t in s.turns]
    planted = {k for t in turns for k in t.plants}
    assert {"order_number", "birthday", "preferred_carrier", "contact_channel", "shipping_address"} <= planted
    assert any(t.question and not t.needs_memory for t in turns)  # questions that need no memory
    checks = {c.kind for c in customers for s in c.sessions for c in s.after}
    assert {"memory", "memory_count", "conflict"} <= checks
    assert max(len(s.turns) for c in customers for s in c.sessions) * 2 >= 300  # the 300-message session


def test_the_generator_is_deterministic_and_matches_the_committed_files():
    corpus, long = generator.generate()
    assert json.loads((CORPUS / "generated.json").read_text()) == corpus
    assert json.loads((CORPUS / "long_session.json").read_text()) == long
    assert generator.generate(seed=1)[0] != corpus


def test_a_question_expects_the_value_stated_before_it_not_one_stated_later():
    """A carrier or channel question is checked against what the customer had said by then."""
    names = {"preferred_carrier": generator.CARRIERS, "contact_channel": generator.CHANNELS}
    corpus, _ = generator.generate()
    asked = 0
    for customer in corpus["customers"]:
        zh = customer["language"] == "zh"
        said: dict[str, str] = {}
        for session in customer["sessions"]:
            for turn in session["turns"]:
                if isinstance(turn, str):
                    continue
                if turn.get("question") in names:
                    key = turn["question"]
                    expected = names[key][said[key]][0 if zh else 1]
                    assert turn["checks"] == [{"reply_contains": expected}], (customer["id"], turn["say"])
                    asked += 1
                said.update(turn.get("plants", {}))
    assert asked >= 20


def test_a_minimal_file_loads(tmp_path):
    [loaded] = scenarios.load(write(tmp_path, MINIMAL))
    assert loaded.customers[0].sessions[0].turns[0].say == "hi"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format=2), "format: this harness reads format 1"),
        (lambda d: d.pop("customers"), "(top): missing 'customers'"),
        (lambda d: d["customers"][0].update(language="fr"), "customers[0].language: expected 'zh' or 'en'"),
        (lambda d: d["customers"][0].update(colour="red"), "customers[0]: unknown field 'colour'"),
        (
            lambda d: d["customers"][0]["sessions"][0].update(turns=[]),
            "customers[0].sessions[0].turns: needs at least 1",
        ),
        (
            lambda d: d["customers"][0]["sessions"][0]["turns"].append({"say": "x", "checks": [{"reply_has": "y"}]}),
            "customers[0].sessions[0].turns[1].checks[0]: unknown check 'reply_has'",
        ),
        (
            lambda d: d["customers"][0]["sessions"][0].update(after=[{"memory": {"key": "shoe_size", "value": "9"}}]),
            "customers[0].sessions[0].after[0].memory.key: unknown key 'shoe_size'",
        ),
        (
            lambda d: d["customers"][0]["sessions"][0]["turns"].append({"say": "x", "question": "birthday"}),
            "a question needs at least one check",
        ),
        (
            lambda d: d["customers"][0].update(orders=[{"number": "12345", "status": "shipped"}]),
            "customers[0].orders[0].number: '12345' is not an order number",
        ),
        (
            lambda d: d["customers"][0]["sessions"][0].update(days_after=-1),
            "customers[0].sessions[0].days_after: expected a number >= 0",
        ),
        (
            lambda d: d["customers"].append(json.loads(json.dumps(d["customers"][0]))),
            "customers[1].id: 'c1' must be unique",
        ),
    ],
)
def test_a_bad_file_fails_with_the_place_and_the_problem(tmp_path, change, message):
    path = broken(tmp_path, change)
    with pytest.raises(scenarios.ScenarioError) as error:
        scenarios.load(path)
    assert str(error.value).startswith(str(path))
    assert message in str(error.value)


def test_invalid_json_and_missing_paths_say_so(tmp_path):
    with pytest.raises(scenarios.ScenarioError, match="not valid JSON: line 1"):
        scenarios.load(write(tmp_path, "{nope"))
    with pytest.raises(scenarios.ScenarioError, match="no such file or folder"):
        scenarios.load(tmp_path / "missing.json")
    with pytest.raises(scenarios.ScenarioError, match="no \\*.json scenario files"):
        scenarios.load(tmp_path / "empty" if (tmp_path / "empty").mkdir() is None else tmp_path)


def test_an_order_number_in_two_files_is_refused(tmp_path):
    order = {"number": "ORD-2030-0001", "status": "shipped"}
    for name in ("a.json", "b.json"):
        data = json.loads(json.dumps(MINIMAL))
        data["customers"][0]["orders"] = [order]
        write(tmp_path, data, name)
    with pytest.raises(scenarios.ScenarioError, match="ORD-2030-0001 is also in"):
        scenarios.load(tmp_path)


def test_a_customer_id_in_two_files_is_refused(tmp_path):
    # all files' customers play at once, so an id names one customer across the files
    write(tmp_path, MINIMAL, "a.json")
    write(tmp_path, MINIMAL, "b.json")
    with pytest.raises(scenarios.ScenarioError, match="b.json: customer c1 is also in .*a.json"):
        scenarios.load(tmp_path)


def _customer(cid: str, *days: float) -> dict:
    sessions = [{"days_after": d, "turns": ["hi"] * (i + 1)} for i, d in enumerate(days)]
    return {"id": cid, "language": "en", "sessions": sessions}


def test_every_session_starts_on_its_day_of_one_timeline(tmp_path):
    one = {"format": 1, "customers": [_customer("a", 0, 3, 2), _customer("b", 0, 5)]}
    two = {"format": 1, "customers": [_customer("c", 1, 4)]}
    files = scenarios.load(write(tmp_path, one, "1.json")) + scenarios.load(write(tmp_path, two, "2.json"))

    days = runner.timeline(files)

    # (file, customer, session) on each day since the customers were created; the clock only moves forward
    assert days == [
        (0, [(0, 0, 0), (0, 1, 0)]),
        (1, [(1, 0, 0)]),
        (3, [(0, 0, 1)]),
        (5, [(0, 0, 2), (0, 1, 1), (1, 0, 1)]),  # the longest session of the day first: a's 3rd has 3 turns
    ]
    # every customer still sees exactly its own days between sessions
    for f, scenario in enumerate(files):
        for c, customer in enumerate(scenario.customers):
            starts = [day for day, slots in days for slot in slots if slot[:2] == (f, c)]
            assert [b - a for a, b in zip([0, *starts], starts, strict=False)] == [
                s.days_after for s in customer.sessions
            ]


@pytest.mark.parametrize(
    ("reply", "keys"),
    [
        ("请提供您的订单号，我来帮您查询。", ["order_number"]),
        ("Could you give me your order number?", ["order_number"]),
        ("我不确定您指的是哪个订单。请提供您的订单号，我来帮您查询。", ["order_number"]),
        ("I'm not sure which order you mean. Could you give me your order number?", ["order_number"]),
        ("I'm not sure about your birthday. I don't have that information.", ["birthday"]),
        ("我不确定您的生日。如果方便的话，请告诉我，我会记下来。", ["birthday"]),
        # a policy that mentions order numbers is not a request for one
        ("根据《退款政策》：……申请退款时请提供订单号和原因。", []),
        ("Your birthday is March 15.", []),
    ],
)
def test_asking_for_a_value_is_read_from_the_reply(reply, keys):
    assert asked_for(reply) == keys


def test_customers_with_the_same_days_between_sessions_form_a_cohort():
    generated = next(f for f in scenarios.load(CORPUS) if f.name == "generated")
    groups = runner.cohorts(generated.customers)
    assert len(groups) == generator.COHORTS and sum(map(len, groups)) == len(generated.customers)
    for group in groups:
        assert len({tuple(s.days_after for s in c.sessions) for c in group}) == 1
        assert {c.language for c in group} == {"zh", "en"}
    handwritten = next(f for f in scenarios.load(CORPUS) if f.name == "handwritten")
    assert len(runner.cohorts(handwritten.customers)) == len(handwritten.customers)  # all different days


def test_the_sample_of_the_sampled_modes_is_fixed_and_stratified():
    generated = next(f for f in scenarios.load(CORPUS) if f.name == "generated")
    sample = runner.stratified_sample(generated.customers, 3)
    assert sample == runner.stratified_sample(generated.customers, 3)
    assert 10 <= len(sample) <= 20
    strata = {(c.language, c.tags) for c in generated.customers}
    assert {(c.language, c.tags) for c in sample} == strata  # every stratum is in it
    assert len(runner.cohorts(sample)) == generator.COHORTS
    assert runner.stratified_sample(generated.customers, 1) == generated.customers
