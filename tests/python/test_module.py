"""The Python module against the command's answers on the shipped models
(models/resend: Pmax = 1 - 0.1^MAX_TRIES, Pmin = 1 - 0.3^MAX_TRIES; models/die:
1/6 per face), its errors, and its per-state values. Run by ctest with the build's
tools/python on PYTHONPATH and MDPVI_MODELS naming models/."""
import math
import os
from pathlib import Path

import numpy
import pytest

import mdpvi

MODELS = Path(os.environ.get("MDPVI_MODELS", Path(__file__).resolve().parents[2] / "models"))
RESEND = MODELS / "resend" / "resend.nm"


@pytest.fixture
def resend_open(tmp_path):
    """resend.nm with MAX_TRIES left undefined, for constants given to check()."""
    model = tmp_path / "resend_open.nm"
    model.write_text(RESEND.read_text().replace("const int MAX_TRIES = 3;", "const int MAX_TRIES;"))
    return model


def test_bounds_hold_the_exact_values(resend_open):
    report = mdpvi.check(resend_open, ['Pmax=? [ F "delivered" ]', 'Pmin=? [ F "delivered" ]'], constants={"MAX_TRIES": 3})
    assert report.model.type == "MDP"
    assert report.model.states > 0 and report.model.transitions >= report.model.choices
    best, worst = report.properties
    for result, exact in ((best, 1 - 0.1 ** 3), (worst, 1 - 0.3 ** 3)):
        assert result.answered and result.error is None
        assert result.lower - 1e-12 <= exact <= result.upper + 1e-12  # exact: rounded here too
        assert result.upper - result.lower <= 2e-6 * exact
        assert math.isclose(result.value, exact, rel_tol=1e-6)
    assert best.state_values is None  # not asked for
    assert report.method == "optimistic value or policy iteration" and report.criterion == "relative"


def test_properties_file_named_properties_and_a_sweep(resend_open):
    report = mdpvi.check(str(resend_open), properties_file=RESEND.with_suffix(".props"), constants={"MAX_TRIES": "2:3"})
    assert len(report.properties) == 2 * 4  # four properties, two settings
    answers = {(r.property, r.constants["MAX_TRIES"]): r.value for r in report.properties}
    assert math.isclose(answers[('"best": Pmax=? [ F "delivered" ]', "2")], 1 - 0.1 ** 2, rel_tol=1e-6)
    assert math.isclose(answers[('"worst": Pmin=? [ F "delivered" ]', "3")], 1 - 0.3 ** 3, rel_tol=1e-6)


def test_explicit_model_and_booleans():
    report = mdpvi.check(MODELS / "die" / "die.tra", ['P>=1 [ F "done" ]', 'P=? [ F "six" ]'], method="vi")
    assert report.model.type == "DTMC"
    assert report.properties[0].value is True
    assert math.isclose(report.properties[1].value, 1 / 6, rel_tol=1e-5)
    assert report.properties[1].lower is None  # value iteration gives no bound


def test_state_values_are_numpy_arrays_by_state():
    report = mdpvi.check(RESEND, ['Pmax=? [ F "delivered" ]'], state_values=True)
    result = report[0]
    assert isinstance(result.state_values, numpy.ndarray)
    assert result.state_values.shape == (report.model.states,)
    assert numpy.all(result.state_lower <= result.state_values + 1e-12)
    assert numpy.all(result.state_values <= result.state_upper + 1e-12)
    assert result.state_values.max() == 1.0  # the delivered states


def test_schedulers_pick_the_channels(resend_open):
    report = mdpvi.check(resend_open, ['Pmax=? [ F "delivered" ]', 'Pmin=? [ F "delivered" ]', 'Pmax=? [ X "delivered" ]'],
                         constants={"MAX_TRIES": 3}, schedulers=True, state_values=True)
    best, worst, step = report.properties
    for result, channel in ((best, "reliable"), (worst, "cheap")):
        assert result.scheduler.shape == (report.model.states,)
        picked = {result.action_names[a] for a in result.scheduler_actions}
        assert channel in picked and picked <= {channel, "done"}
        assert result.no_scheduler is None
    assert step.scheduler is None and "unbounded" in step.no_scheduler


def test_a_property_that_cannot_be_answered_keeps_the_others():
    report = mdpvi.check(RESEND, ['Pmax=? [ F "no_such_label" ]', 'Pmax=? [ F "delivered" ]'])
    assert not report[0].answered and "no_such_label" in report[0].error
    assert report[0].value is None
    assert math.isclose(report[1].value, 0.999, rel_tol=1e-6)


def test_bad_input_names_its_place(tmp_path):
    broken = tmp_path / "broken.nm"
    broken.write_text("mdp\nmodule m\n  x : [0..1] init 0;\n  [] x=0 -> (x'=);\nendmodule\n")
    with pytest.raises(mdpvi.BadInput, match=r"broken\.nm:4:\d+: expected"):
        mdpvi.check(broken, ['P=? [ F x=1 ]'])
    with pytest.raises(ValueError):
        mdpvi.check(RESEND, ['Pmax=? [ F "delivered" ]'], method="fast")
    with pytest.raises(ValueError):
        mdpvi.check(RESEND)
    with pytest.raises(TypeError):
        mdpvi.check(RESEND, ['Pmax=? [ F "delivered" ]'], constants={"LOSS": [3]})


def test_version():
    assert mdpvi.__version__


def test_a_ctmc_answers_in_closed_form():
    """models/repair: two machines failing at 0.01 an hour each, one repairer at 0.5."""
    fail, repair = 0.01, 0.5
    weights = (1, 2 * fail / repair, 2 * fail ** 2 / repair ** 2)  # 2, 1 and 0 machines up
    report = mdpvi.check(MODELS / "repair" / "repair.sm", ['S=? [ !"down" ]', 'P=? [ F<=168 "down" ]'])
    assert report.model.type == "CTMC"
    availability, outage = report.properties
    assert math.isclose(availability.value, 1 - weights[2] / sum(weights), rel_tol=1e-12)
    assert availability.lower is None  # a stationary distribution carries no bound
    assert outage.lower <= outage.value <= outage.upper and outage.upper - outage.lower < 1e-9


def test_a_jani_model_checks_its_own_properties():
    """tests/models/jani/two.jani: its properties by name, none given; one has no PRISM form."""
    jani = Path(__file__).resolve().parents[1] / "models" / "jani" / "two.jani"
    report = mdpvi.check(jani, constants={"N": 2})
    by_name = {r.property.split('"')[1]: r for r in report.properties}
    assert by_name["reach"].value == 1
    assert math.isclose(by_name["cost_min"].value, 10.0, rel_tol=1e-5)
    assert "not supported yet" in by_name["some_scheduler"].error
    picked = mdpvi.check(jani, ["cost_min"], constants={"N": 2})
    assert [r.property for r in picked.properties] == ['"cost_min": R{"cost"}min=? [ F "done" ]']


def test_gpus_mirror_the_command():
    """gpus=1 answers as the default; more GPUs than the machine has is the command's error."""
    report = mdpvi.check(RESEND, ['Pmax=? [ F "delivered" ]'], gpus=1)
    assert math.isclose(report.properties[0].value, 1 - 0.1 ** 3, rel_tol=1e-6)
    with pytest.raises(Exception, match="--gpus 64: this machine has"):
        mdpvi.check(RESEND, ['Pmax=? [ F "delivered" ]'], gpus=64)
    with pytest.raises(ValueError):
        mdpvi.check(RESEND, ['Pmax=? [ F "delivered" ]'], gpus=-1)
