"""mdpvi from Python: PRISM's properties of MDPs and DTMCs, answered with sound bounds.

    import mdpvi
    report = mdpvi.check("resend.nm", properties=['Pmax=? [ F "delivered" ]'], constants={"MAX_TRIES": 3})
    best = report.properties[0]
    print(best.value, best.lower, best.upper)   # 0.999, and the bounds that hold it

A model file in the PRISM language, or PRISM's explicit (.tra with its .lab and .sta),
DRN or UMB exports. check() raises mdpvi.BadInput (a ValueError) for a model or
properties file that cannot be read, with its file:line:col; a property that cannot be
answered has its reason in .error instead.
"""
from dataclasses import dataclass, field
from os import PathLike
from typing import Dict, List, Optional, Sequence, Union

from ._mdpvi import BadInput, __version__
from ._mdpvi import check as _check

__all__ = ["check", "Report", "Model", "Result", "BadInput", "__version__"]


@dataclass(frozen=True)
class Model:
    """The model as built: its source, type ("MDP" or "DTMC") and sizes."""
    source: str
    type: str
    states: int
    choices: int
    transitions: int
    initial_states: int
    build_s: float
    graph_on: str


@dataclass(frozen=True)
class Result:
    """One property's answer. value: a float, a bool, or a (low, high) range over the
    initial states; None where it was not answered (error says why). lower and upper
    bound the value where the method gives bounds (the default does). With
    state_values=True, state_values holds every state's value (numpy, by state
    index), and state_lower and state_upper its bounds. With schedulers=True, an optimal
    scheduler of a Pmin/Pmax/Rmin/Rmax=? of an unbounded F or U: scheduler[s] is state
    s's choice (its index among the state's choices) and action_names[scheduler_actions[s]]
    its action (numpy arrays); elsewhere no_scheduler says why there is none."""
    property: str
    value: Union[float, bool, tuple, None]
    lower: Optional[float]
    upper: Optional[float]
    text: Optional[str]
    scope: Optional[str]
    error: Optional[str]
    constants: Dict[str, str]
    time_s: float
    state_values: object = None
    state_lower: object = None
    state_upper: object = None
    scheduler: object = None
    scheduler_actions: object = None
    action_names: Optional[List[str]] = None
    no_scheduler: Optional[str] = None

    @property
    def answered(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Report:
    """A run's model and its results, one per property (and per setting of a swept
    constant), in the order given: the properties file's first, then properties."""
    model: Model
    results: List[Result] = field(default_factory=list)
    method: str = ""
    epsilon: float = 0.0
    criterion: str = ""

    @property
    def properties(self) -> List[Result]:
        return self.results

    def __getitem__(self, index: int) -> Result:
        return self.results[index]


def check(model: Union[str, PathLike], properties: Sequence[str] = (), *,
          properties_file: Union[str, PathLike, None] = None, constants: Optional[Dict[str, object]] = None,
          method: str = "auto", epsilon: float = 1e-6, relative: bool = True, solver: str = "auto",
          state_values: bool = False, schedulers: bool = False, gpu_memory_limit: Optional[int] = None,
          gpu_system: str = "auto", threads: int = 0, gpus: int = 0) -> Report:
    """Builds the model and answers its properties, as `mdpvi check` does.

    properties: property texts (a name may lead: '"best": Pmax=? [ F "goal" ]'), or names
    of the properties file's (or a JANI model's own; with none given, a JANI model's are
    all checked); properties_file: a PRISM properties file, checked first. constants: the model's and
    the properties' undefined constants; a value may be a range "1:3" or "0:0.1:1" (every
    setting is checked). method: "auto" (the default: optimistic value iteration, and on
    the CPU policy iteration where it would crawl; sound bounds), "ovi" (optimistic value
    iteration), "ii" (interval iteration), "vi" (PRISM's value iteration, no bound),
    "bicgstab" (DTMCs) or "pi" (policy iteration where value iteration crawls, sound
    bounds). epsilon and relative: the precision. solver: "auto", "gpu" or
    "cpu". state_values and schedulers: keep every state's values, and an optimal
    scheduler, per result (Result). gpu_memory_limit and gpu_system: as --gpu-memory-limit
    and --gpu-system. threads: 0 for all cores. gpus: as --gpus (0: all, for SCCs past
    one GPU; 2 or more: each level's SCCs spread over that many).
    """
    raw = _check(model, list(properties), properties_file, dict(constants or {}), method, epsilon, relative, solver,
                 state_values, schedulers, gpu_memory_limit, gpu_system, threads, gpus)
    return Report(model=Model(**raw["model"]), results=[Result(**r) for r in raw["properties"]], method=raw["method"],
                  epsilon=raw["epsilon"], criterion=raw["criterion"])
