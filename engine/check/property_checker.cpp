#include "engine/check/property_checker.h"

#include "engine/solve/method_requirements.h"
#include "engine/check/ctl.h"
#include "engine/model/uniformisation.h"
#include "engine/check/fairness.h"
#include "engine/check/recurrence.h"
#include "engine/check/filter.h"
#include "engine/check/long_run_mdp.h"
#include "engine/automata/ltl_simplify.h"
#include "engine/automata/step_bounds.h"
#include "engine/check/ltl.h"
#include "engine/check/multi_objective.h"
#include "engine/check/rewards.h"
#include "engine/check/steady_state.h"
#include "engine/check/step_bounded.h"
#include "engine/check/total_reward.h"
#include "engine/check/discounted_reward.h"
#include "engine/check/transient.h"
#include "engine/model/stopwatch.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

namespace mdpvi {

namespace {

using Path = TemporalOperator::Path;

bool compare(Comparison c, double value, double threshold) {
  switch (c) {
    case Comparison::less: return value < threshold;
    case Comparison::less_equal: return value <= threshold;
    case Comparison::greater: return value > threshold;
    case Comparison::greater_equal: return value >= threshold;
  }
  return false;
}

class Checker {
 public:
  explicit Checker(const CheckContext& context) : c_(context) {}

  PropertyResult top(const Formula& f) {
    PropertyResult result;
    if (f.kind == Formula::Kind::filter) {
      result.value = filter(f);
    } else if (f.kind == Formula::Kind::multi) {
      result.value = multi_objective(f);
    } else {
      StateValues values = evaluate(f);
      result.value = apply_default_filter(values, c_.mdp, c_.scope.source, f.position);
      if (c_.keep_scheduler) keep_scheduler(f, values, result);
      if (c_.keep_state_values) result.state_values = std::move(values);
    }
    result.computation = std::move(last_);
    return result;
  }

 private:
  // The last reachability query solved, kept for its scheduler.
  struct QueryInputs {
    Optimization direction;
    std::optional<StateSet> phi;
    StateSet target;
    const RewardStructure* rewards;
  };

  void keep_scheduler(const Formula& f, const StateValues& values, PropertyResult& result) const {
    const TemporalOperator& op = f.temporal;
    const bool unbounded = f.kind == Formula::Kind::temporal && !op.comparison && !op.step_bound &&
                           !op.lower_step_bound && !op.complement &&
                           (op.path == Path::until || op.path == Path::reachability_reward);
    if (!unbounded || !last_query_) {
      result.no_scheduler = "a scheduler is exported for Pmin/Pmax/Rmin/Rmax=? of an unbounded F or U only";
      return;
    }
    const QueryInputs& q = *last_query_;
    const ReachabilityQuery query{q.direction, q.phi ? &*q.phi : nullptr, &q.target, q.rewards};
    result.scheduler = optimal_scheduler(c_.mdp, query, values.numbers, attaining_tolerance(values));
  }

  // How far a choice's value may lie from its state's and still attain it: twice the
  // widest bound (each of the two values lies within it of the truth), or for value
  // iteration, which gives no bound, twice epsilon at the largest finite value.
  double attaining_tolerance(const StateValues& values) const {
    double largest = 1.0, widest = 0.0;
    for (std::size_t s = 0; s < values.numbers.size(); ++s) {
      if (!std::isfinite(values.numbers[s])) continue;
      largest = std::max(largest, std::abs(values.numbers[s]));
      if (values.has_bounds()) widest = std::max(widest, values.upper_numbers()[s] - values.lower_numbers()[s]);
    }
    if (!values.has_bounds()) widest = c_.solver.stop.epsilon * largest;
    return 2 * widest + 1e-12 * largest;
  }

  StateValues evaluate(const Formula& f) {
    switch (f.kind) {
      case Formula::Kind::state: return state(f);
      case Formula::Kind::temporal: return temporal(f);
      case Formula::Kind::filter: return broadcast(filter(f), f);
      case Formula::Kind::multi: fail(f.position, "multi(...) is a property of its own, not part of one");
    }
    return {};
  }

  [[noreturn]] void fail(SourcePosition at, const std::string& message) const {
    throw LocatedError(c_.scope.source, at.line, at.column, message);
  }

  // An expression over the operators in f.operands: a bounded one as its states, a
  // P=? or R=? one as its numbers (1 - Pmax=? [ F "a" ]; PRISM's value, without a bound).
  StateValues state(const Formula& f) {
    std::vector<std::optional<StateValues>> nested(f.operands.size());
    NestedResolver resolver = [&](std::size_t i) -> NestedValues {
      if (!nested[i]) nested[i] = evaluate(f.operands[i]);
      const StateValues& values = *nested[i];
      return values.boolean ? NestedValues{&values.truth, nullptr} : NestedValues{nullptr, &values.numbers};
    };
    return evaluate_state_expression(f.expression, c_.mdp, c_.scope, f.operands.empty() ? nullptr : resolver);
  }

  StateSet boolean(const Formula& f) {
    StateValues values = evaluate(f);
    if (!values.boolean) fail(f.position, "expected a Boolean state formula, found a number");
    return std::move(values.truth);
  }

  StateValues broadcast(const PropertyValue& value, const Formula& f) {
    const std::uint32_t n = c_.mdp.num_states();
    switch (value.kind) {
      case PropertyValue::Kind::boolean: {
        StateSet truth(n);
        if (value.truth) truth.set();
        return StateValues::of_truth(std::move(truth));
      }
      case PropertyValue::Kind::number: return StateValues::of_numbers(filled(n, value.number));
      case PropertyValue::Kind::range:
      case PropertyValue::Kind::pareto: break;
    }
    fail(f.position, "a range (filter range or several initial states) cannot be used inside a property");
  }

  // multi(...) at the initial state (engine/check/multi_objective.h).
  PropertyValue multi_objective(const Formula& f) {
    if (c_.mdp.uniformisation_rate > 0.0) fail(f.position, "not supported yet: multi-objective queries of a CTMC");
    std::vector<MultiObjective> objectives;
    for (const Formula& o : f.operands) objectives.push_back(objective_of(o));
    try {
      return value_of(check_multi_objective(c_.mdp, objectives));
    } catch (const std::runtime_error& error) {
      fail(f.position, error.what());
    }
  }

  // One objective of multi(...): a P of an until (or its complement, step bounds
  // included), of X or of an LTL path, or an R [ C ] or R [ C<=k ].
  MultiObjective objective_of(const Formula& o) {
    const TemporalOperator& op = o.temporal;
    MultiObjective objective;
    objective.reward = op.kind == TemporalOperator::Kind::reward;
    if (objective.reward) {
      if (op.path == Path::cumulative_reward) {
        // The product pairs each state with the steps taken, as LTL's unfolded bounds do.
        const std::uint64_t k = steps(*op.step_bound);
        if (k > automata::kMostUnfoldedSteps) {
          fail(op.step_bound->position, "not supported yet: a step bound above " +
                                            std::to_string(automata::kMostUnfoldedSteps) + " in multi(...)");
        }
        objective.reward_steps = static_cast<std::uint32_t>(k);
      } else if (op.path != Path::total_reward) {
        fail(o.position, "not supported yet: multi(...) of rewards other than R [ C ] and R [ C<=k ]");
      }
      objective.rewards = &reward_structure(o);
    } else if (op.path == Path::ltl) {
      LtlPath ltl = ltl_of(o);
      objective.ltl = std::move(ltl.path);
      objective.atoms = std::move(ltl.atoms);
    } else if (op.path == Path::until && !op.step_bound && !op.lower_step_bound) {
      objective.phi = boolean(o.operands[0]);
      objective.psi = boolean(o.operands[1]);
      objective.complement = op.complement;
    } else {
      // X and step-bounded untils are co-safe (or, complemented, safety) paths: the
      // multi-objective product tracks them through their automata as it does LTL.
      objective.ltl = bounded_path_as_ltl(o);
      objective.atoms = ltl_atoms(o);
    }
    if (op.comparison) {
      objective.comparison = *op.comparison;
      objective.threshold = constant(op.threshold);
    } else {
      if (!op.direction) fail(o.position, "an objective =? of multi(...) needs min or max");
      objective.query = *op.direction;
    }
    return objective;
  }

  static PropertyValue value_of(const MultiObjectiveAnswer& answer) {
    PropertyValue value;
    if (!answer.pareto.empty()) {
      value.kind = PropertyValue::Kind::pareto;
      value.points = answer.pareto;
      value.scope = "the initial state's, by linear programming";
      return value;
    }
    value.kind = answer.numerical ? PropertyValue::Kind::number : PropertyValue::Kind::boolean;
    value.number = answer.value;
    value.truth = answer.achievable;
    value.scope = answer.bounds_unmet ? "no scheduler meets the other objectives' bounds"
                  : answer.numerical  ? "value in the initial state, by linear programming"
                                      : "in the initial state";
    return value;
  }

  PropertyValue filter(const Formula& f) {
    StateValues values = evaluate(f.operands[0]);
    StateSet states = boolean(f.operands[1]);
    return apply_filter(f.filter, values, states, c_.mdp, c_.scope.source, f.position);
  }

  double constant(const Expression& e, ValueType* type = nullptr) const {
    return evaluate_constant(substitute_constants(e, c_.scope.constants), NameScope::constants_only(c_.scope.source), type);
  }

  std::uint64_t steps(const Expression& bound) const {
    ValueType type;
    double k = constant(bound, &type);
    if (type != ValueType::integer) fail(bound.position, "expected an integer step bound, found " + std::string(to_string(type)));
    if (k < 0) fail(bound.position, "a step bound must be at least 0, found " + std::to_string(static_cast<long long>(k)));
    return static_cast<std::uint64_t>(k);
  }

  // A reward path's discount factor, where one below 1 is given (d = 1 is no discount).
  std::optional<double> discount(const TemporalOperator& op) const {
    if (!op.discount) return std::nullopt;
    const double d = constant(*op.discount);
    if (!(d >= 0.0 && d <= 1.0)) {  // NaN too
      fail(op.discount->position, "a discount factor must lie in the range [0, 1], found " + format_number(d));
    }
    if (c_.mdp.uniformisation_rate > 0.0) fail(op.discount->position, "discounted rewards of a CTMC are not supported");
    return d < 1.0 ? std::optional<double>(d) : std::nullopt;
  }

  Optimization direction(const Formula& f) const {
    const TemporalOperator& op = f.temporal;
    if (op.direction) return *op.direction;
    if (has_one_choice_per_state(c_.mdp.type)) return Optimization::minimize;  // one scheduler: min = max
    if (op.comparison) {  // the bound must hold for every scheduler (or for some: the other end)
      const bool lower = *op.comparison == Comparison::greater || *op.comparison == Comparison::greater_equal;
      return lower != op.some_scheduler ? Optimization::minimize : Optimization::maximize;
    }
    const char* name = op.kind == TemporalOperator::Kind::probability    ? "P"
                       : op.kind == TemporalOperator::Kind::steady_state ? "S"
                                                                          : "R";
    fail(f.position, fmt::format("{0}=? needs min or max for an MDP ({0}min=? or {0}max=?)", name));
  }

  const RewardStructure& reward_structure(const Formula& f) const {
    const TemporalOperator& op = f.temporal;
    const std::vector<RewardStructure>& all = c_.mdp.rewards;
    if (op.reward_name) {
      for (const RewardStructure& r : all) {
        if (r.name == *op.reward_name) return r;
      }
      fail(f.position, "the model has no reward structure \"" + *op.reward_name + "\"");
    }
    std::size_t index = 1;
    if (op.reward_index) {
      ValueType type;
      double i = constant(*op.reward_index, &type);
      if (type != ValueType::integer || i < 1 || i > static_cast<double>(all.size())) {
        fail(op.reward_index->position, "expected a reward structure index from 1 to " + std::to_string(all.size()));
      }
      index = static_cast<std::size_t>(i);
    }
    if (all.empty()) fail(f.position, "the model has no reward structures");
    return all[index - 1];
  }

  StateValues temporal(const Formula& f) {
    const TemporalOperator& op = f.temporal;
    if (op.kind == TemporalOperator::Kind::exists || op.kind == TemporalOperator::Kind::forall) {
      return StateValues::of_truth(path_quantified(f));
    }
    Optimization dir = direction(f);
    std::optional<double> threshold;
    if (op.comparison) {
      threshold = constant(op.threshold);
      if (std::isnan(*threshold)) fail(op.threshold.position, "the bound is not a number (NaN)");
      const bool probability =
          op.kind == TemporalOperator::Kind::probability || op.kind == TemporalOperator::Kind::steady_state;
      if (probability && (*threshold < 0.0 || *threshold > 1.0)) {
        fail(op.threshold.position, "a probability bound must lie in [0, 1]");
      }
    }
    if (op.kind == TemporalOperator::Kind::probability && op.path == Path::until && !op.step_bound &&
        !op.lower_step_bound && !op.complement && threshold && !fair_minimum(dir)) {
      if (std::optional<StateSet> qualitative = qualitative_until(f, dir, *op.comparison, *threshold)) {
        return StateValues::of_truth(std::move(*qualitative));
      }
    }
    StateValues values = solved(f, dir, c_.solver);
    if (!threshold) return values;
    if (values.has_bounds()) return decide_soundly(f, dir, *op.comparison, *threshold, std::move(values));
    return StateValues::of_truth(holding(values.numbers, *op.comparison, *threshold));
  }

  // The states whose value meets the bound.
  static StateSet holding(const StateNumbers& values, Comparison c, double threshold) {
    StateSet truth(values.size());
    for (std::uint32_t s = 0; s < values.size(); ++s) {
      if (compare(c, values[s], threshold)) truth.set(s);
    }
    return truth;
  }

  // The operator's values; with a sound method, their bounds too (exact where
  // nothing was iterated: step bounds, graph answers). Keeps the computation's summary.
  StateValues solved(const Formula& f, Optimization dir, const SolverOptions& solver) {
    NumericResult result = numeric(f, dir, solver);
    StateValues values = StateValues::of_numbers(std::move(result.values));
    if (requirements_of(solver.method).gives_bounds && !result.long_run) {
      // Exact values are their own bounds, kept once (they are model-sized).
      const auto exact = [&] { return copy_of(values.numbers.data(), values.numbers.size()); };
      if (result.lower.empty() && result.upper.empty()) {
        values.exact = true;
      } else {
        values.lower = result.lower.empty() ? exact() : std::move(result.lower);
        values.upper = result.upper.empty() ? exact() : std::move(result.upper);
      }
    }
    last_ = std::move(result).summary();
    return values;
  }

  // A sound bound decides a state only when the state's whole interval lies on one side
  // of it. Where an interval straddles the bound, the solve runs again at a tenth of the
  // epsilon, down to kFinestEpsilon; an interval still straddling it there holds a value
  // on the bound to the limits of double precision, and that is an error, not a guess.
  StateValues decide_soundly(const Formula& f, Optimization dir, Comparison c, double threshold, StateValues values) {
    constexpr double kFinestEpsilon = 1e-14;
    SolverOptions solver = c_.solver;
    for (std::optional<std::uint32_t> open = straddling(values, c, threshold); open;
         open = straddling(values, c, threshold)) {
      if (solver.stop.epsilon <= kFinestEpsilon) cannot_decide(f, *open, values, threshold, solver.stop.epsilon);
      const double tenth = solver.stop.epsilon / 10;
      solver.stop.epsilon = tenth < kFinestEpsilon * 1.01 ? kFinestEpsilon : tenth;  // 1e-6 / 10^8 rounds above 1e-14
      spdlog::info("state {} lies in [{}, {}], around the bound {}: solving again with epsilon {:g}", *open,
                   values.lower_numbers()[*open], values.upper_numbers()[*open], threshold, solver.stop.epsilon);
      try {
        values = solved(f, dir, solver);
      } catch (const NotConvergedError& error) {
        cannot_decide(f, *open, values, threshold, solver.stop.epsilon, error.what());
      }
    }
    return StateValues::of_truth(holding(values.lower_numbers(), c, threshold));  // lower and upper agree now
  }

  // The first state whose interval the bound cuts (decided one way at its lower end,
  // the other way at its upper end).
  static std::optional<std::uint32_t> straddling(const StateValues& values, Comparison c, double threshold) {
    if (values.exact) return std::nullopt;
    for (std::uint32_t s = 0; s < values.lower.size(); ++s) {
      if (compare(c, values.lower[s], threshold) != compare(c, values.upper[s], threshold)) return s;
    }
    return std::nullopt;
  }

  [[noreturn]] void cannot_decide(const Formula& f, std::uint32_t s, const StateValues& values, double threshold,
                                  double epsilon, const std::string& why = "") const {
    fail(f.position, fmt::format("cannot decide the bound {} in state {}: its value lies in [{}, {}] at epsilon {:g}{}{}",
                                 threshold, s, values.lower_numbers()[s], values.upper_numbers()[s], epsilon,
                                 why.empty() ? "" : "; ", why));
  }

  NumericResult numeric(const Formula& f, Optimization dir, const SolverOptions& solver) {
    if (!f.temporal.complement) return numeric_of_path(f, dir, solver);
    return complemented(numeric_of_path(f, opposite(dir), solver));
  }

  // CTL: E [ path ] or A [ path ] (engine/check/ctl.h); a complement swaps E and A.
  // A CTMC's paths are its jumps: those of its embedded chain, not of the uniformised
  // one, whose self-loops would let a path stay forever where the CTMC leaves.
  StateSet path_quantified(const Formula& f) {
    const TemporalOperator& op = f.temporal;
    const bool forall = (op.kind == TemporalOperator::Kind::forall) != op.complement;
    std::optional<SparseMdp> jumps;
    std::unique_ptr<graph::SearchBackend> jump_search;
    if (c_.mdp.uniformisation_rate > 0.0) {
      if (op.step_bound || op.lower_step_bound) fail(f.position, "not supported yet: E and A with a time bound on a CTMC");
      jumps = embedded_chain(c_.mdp);
      jump_search = graph::make_search_backend(*jumps, graph::SearchKind::cpu_parallel);
    }
    const SparseMdp& mdp = jumps ? *jumps : c_.mdp;
    const graph::SearchBackend& search = jump_search ? *jump_search : c_.search;
    StateSet holds;
    if (op.path == Path::ltl) {  // A [ path ] = !E [ !path ]
      LtlPath ltl = ltl_of(f);
      const PathFormula path = forall ? PathFormula::unary(PathFormula::Op::negation, std::move(ltl.path)) : ltl.path;
      holds = exists_ltl_path(mdp, path, ltl.atoms, search.kind());
      if (forall) holds.flip();
    } else if (op.path == Path::next) {
      holds = ctl_next(mdp, forall, boolean(f.operands[0]));
    } else if (op.path == Path::eventually_always) {
      holds = exists_eventually_always(mdp, search, boolean(f.operands[0]));
    } else if (op.path == Path::always_eventually) {
      holds = exists_always_eventually(mdp, search, boolean(f.operands[0]));
    } else {
      const StateSet phi = boolean(f.operands[0]), psi = boolean(f.operands[1]);
      const auto [first, last] = step_window(op);
      holds = ctl_until(mdp, search, forall, phi, psi, first, last);
    }
    if (op.complement) holds.flip();
    return holds;
  }

  // The step window [first, last] of an until (last none: unbounded). An empty one is
  // an error at its upper bound.
  std::pair<std::uint64_t, std::optional<std::uint64_t>> step_window(const TemporalOperator& op) const {
    const std::uint64_t first = op.lower_step_bound ? steps(*op.lower_step_bound) : 0;
    std::optional<std::uint64_t> last;
    if (op.step_bound) {
      last = steps(*op.step_bound);
      if (*last < first) {
        fail(op.step_bound->position, "the step interval [" + std::to_string(first) + ", " + std::to_string(*last) +
                                          "] is empty");
      }
    }
    return {first, last};
  }

  // phi U[a,b] psi and phi U>=a psi: the rest of the path from step a (psi within b-a
  // steps, or at all), then a steps within phi.
  NumericResult interval_until(const Formula& f, Optimization dir, const SolverOptions& solver, const StateSet& phi,
                               const StateSet& psi) {
    const auto [first, last] = step_window(f.temporal);
    NumericResult result =
        last ? compute_bounded_until(c_.mdp, c_.search, dir, phi, psi, *last - first, solver, c_.device)
             : compute_until_probabilities(c_.mdp, c_.search, dir, phi, psi, solver, c_.device);
    prepend_steps_within(c_.mdp, dir, phi, first, result);
    return result;
  }

  // S [ phi ] (the long-run share of phi) or R [ S ] (the long-run reward per step): of
  // a chain by its stationary distributions, of an MDP by its end components' gains.
  NumericResult long_run(const Formula& f, Optimization dir, const SolverOptions& solver) {
    const SparseMdp& mdp = c_.mdp;
    if (f.temporal.kind == TemporalOperator::Kind::steady_state) {
      const StateSet phi = boolean(f.operands[0]);
      if (mdp.type == ModelType::mdp) return share_of_time_mdp(phi, dir, solver);
      return compute_long_run(mdp, c_.search, numbers_on(phi, 1.0), solver, c_.device, c_.stationary);
    }
    const RewardStructure& rewards = reward_structure(f);
    require_fit_rewards(rewards, "long-run rewards (R[S])");
    if (mdp.type == ModelType::mdp) return compute_long_run_mdp(mdp, c_.search, dir, rewards, solver, c_.device);
    NumericResult result =
        compute_long_run(mdp, c_.search, reward_per_state(mdp, rewards), solver, c_.device, c_.stationary);
    result.reward = true;
    return result;
  }

  // Smin/Smax of an MDP: a long-run reward of 1 in phi's states.
  NumericResult share_of_time_mdp(const StateSet& phi, Optimization dir, const SolverOptions& solver) {
    RewardStructure in_phi;
    in_phi.state_rewards = CompactValues(numbers_on(phi, 1.0));
    NumericResult result = compute_long_run_mdp(c_.mdp, c_.search, dir, in_phi, solver, c_.device);
    result.reward = false;
    // A share of time: its bounds, each sound, may reach past [0, 1] by their width.
    for (StateNumbers* v : {&result.values, &result.lower, &result.upper}) {
      for (double& x : *v) x = std::clamp(x, 0.0, 1.0);
    }
    return result;
  }

  // A time bound of a CTMC: a number >= 0, as written (U<t is U<=t).
  double time(const Expression& bound, bool shifted) const {
    const Expression& written = shifted ? bound.operands[0] : bound;
    const double t = constant(written);
    if (!(t >= 0.0) || !std::isfinite(t)) {
      const std::string found = std::isnan(t) ? "NaN" : fmt::format("{}", t);
      fail(written.position, "a time bound must be a finite number >= 0, found " + found);
    }
    return t;
  }

  TimeWindow time_window(const TemporalOperator& op) const {
    TimeWindow window;
    if (op.lower_step_bound) window.first = time(*op.lower_step_bound, op.lower_step_bound_shifted);
    if (op.step_bound) window.last = time(*op.step_bound, op.step_bound_shifted);
    if (window.last && *window.last < window.first) {
      fail(op.step_bound->position, fmt::format("the time interval [{}, {}] is empty", window.first, *window.last));
    }
    return window;
  }

  // A CTMC's operators that differ from its uniformised DTMC's (engine/check/transient.h):
  // time bounds, rewards per unit of time, and X (refused). None for the others.
  std::optional<NumericResult> continuous_time(const Formula& f, const SolverOptions& solver) {
    const TemporalOperator& op = f.temporal;
    const SparseMdp& ctmc = c_.mdp;
    switch (op.path) {
      case Path::until:
        if (!op.step_bound && !op.lower_step_bound) return std::nullopt;
        return compute_timed_until(ctmc, c_.search, boolean(f.operands[0]), boolean(f.operands[1]), time_window(op),
                                   solver, c_.device);
      case Path::next:  // the next state is the first jump's: the embedded chain's step
        return compute_next(embedded_chain(ctmc), Optimization::minimize, boolean(f.operands[0]));
      case Path::reachability_reward: {
        const std::optional<StateSet> constraint = reward_constraint(f);
        return compute_reachability_reward(ctmc, c_.search, Optimization::minimize,
                                           rewards_per_step(ctmc, reward_structure(f)), boolean(f.operands[0]), solver,
                                           c_.device, constraint ? &*constraint : nullptr);
      }
      case Path::total_reward:
        return compute_total_reward(ctmc, c_.search, Optimization::minimize, rewards_per_step(ctmc, reward_structure(f)),
                                    solver, c_.device);
      case Path::cumulative_reward:
        return compute_reward_until_time(ctmc, reward_structure(f), time(*op.step_bound, op.step_bound_shifted), solver,
                                         c_.device);
      case Path::instantaneous_reward:
        return compute_reward_at_time(ctmc, reward_structure(f), time(*op.step_bound, false), solver, c_.device);
      case Path::ltl:  // a path of jumps: the embedded chain's
        if (op.kind == TemporalOperator::Kind::reward) fail(f.position, "not supported yet: a CTMC's reward over an LTL path");
        if (!op.ltl_bounds.empty()) fail(f.position, "not supported yet: time bounds inside an LTL path of a CTMC");
        {
          const LtlPath ltl = ltl_of(f);
          return compute_ltl_probabilities(embedded_chain(ctmc), Optimization::minimize, ltl.path, ltl.atoms, solver,
                                           c_.device);
        }
      case Path::long_run_reward:
      case Path::eventually_always:
      case Path::always_eventually: return std::nullopt;
    }
    return std::nullopt;
  }

  // An LTL path with its step bounds unfolded (engine/automata/step_bounds.h), then
  // rewritten (engine/automata/ltl_simplify.h) knowing where its state formulas hold,
  // and those.
  struct LtlPath {
    PathFormula path;
    std::vector<StateSet> atoms;
  };
  LtlPath ltl_of(const Formula& f) {
    LtlPath ltl{unfolded_ltl_path(f), ltl_atoms(f)};
    const std::vector<StateSet>& atoms = ltl.atoms;
    const std::size_t before = automata::path_nodes(ltl.path);
    ltl.path = automata::simplified(
        ltl.path, [&](std::uint32_t a, std::uint32_t b) { return atoms[a].is_subset_of(atoms[b]); });
    const std::size_t after = automata::path_nodes(ltl.path);
    if (after < before) spdlog::debug("LTL path rewritten from {} nodes into {}", before, after);
    return ltl;
  }

  PathFormula unfolded_ltl_path(const Formula& f) const {
    std::vector<std::uint64_t> bounds;
    for (const Expression& bound : f.temporal.ltl_bounds) bounds.push_back(steps(bound));
    try {
      return automata::unfold_step_bounds(*f.temporal.ltl, bounds);
    } catch (const std::invalid_argument& error) {
      fail(f.position, error.what());
    }
  }

  // X a, or (a U b with its step bounds, complemented where the operator is): the path
  // as a PathFormula over the operator's state formulas, its bounds unfolded.
  PathFormula bounded_path_as_ltl(const Formula& f) const {
    const TemporalOperator& op = f.temporal;
    if (op.path == Path::next) return PathFormula::unary(PathFormula::Op::next, PathFormula::atom(0));
    const auto [first, last] = step_window(op);
    PathFormula until = PathFormula::binary(PathFormula::Op::until, PathFormula::atom(0), PathFormula::atom(1));
    std::vector<std::uint64_t> bounds;
    if (first > 0) {
      until.lower_bound = static_cast<std::int32_t>(bounds.size());
      bounds.push_back(first);
    }
    if (last) {
      until.upper_bound = static_cast<std::int32_t>(bounds.size());
      bounds.push_back(*last);
    }
    try {
      const PathFormula unfolded = automata::unfold_step_bounds(until, bounds);
      return op.complement ? PathFormula::unary(PathFormula::Op::negation, unfolded) : unfolded;
    } catch (const std::invalid_argument& error) {
      fail(f.position, error.what());
    }
  }

  // Where each of an LTL path's state formulas holds.
  std::vector<StateSet> ltl_atoms(const Formula& f) {
    std::vector<StateSet> atoms;
    for (const Formula& operand : f.operands) atoms.push_back(boolean(operand));
    return atoms;
  }

  // R [ phi U psi ]'s phi (the reward path's second operand), where written.
  std::optional<StateSet> reward_constraint(const Formula& f) {
    if (f.operands.size() < 2) return std::nullopt;
    return boolean(f.operands[1]);
  }

  // R[C{discount=d}<=k], R[C{discount=d}] and R[F{discount=d} phi] for d < 1.
  NumericResult discounted(const Formula& f, Optimization dir, double d, const SolverOptions& solver) {
    const TemporalOperator& op = f.temporal;
    const RewardStructure& rewards = reward_structure(f);
    if (op.path == Path::cumulative_reward) {
      return compute_cumulative_reward(c_.mdp, dir, rewards, steps(*op.step_bound), solver, c_.device, d);
    }
    if (op.path == Path::reachability_reward && f.operands.size() == 1) {
      const StateSet target = boolean(f.operands[0]);
      return compute_discounted_reward(c_.mdp, c_.search, dir, rewards, &target, d, solver, c_.device);
    }
    if (op.path == Path::total_reward) {
      return compute_discounted_reward(c_.mdp, c_.search, dir, rewards, nullptr, d, solver, c_.device);
    }
    fail(op.discount->position, "a discount applies to R[C], R[C<=k] and R[F phi] only");
  }

  NumericResult numeric_of_path(const Formula& f, Optimization dir, const SolverOptions& solver) {
    const TemporalOperator& op = f.temporal;
    const SparseMdp& mdp = c_.mdp;
    if (op.kind == TemporalOperator::Kind::steady_state) return long_run(f, dir, solver);
    // Before a CTMC's paths, which would answer without the discount.
    if (const std::optional<double> d = discount(op)) return discounted(f, dir, *d, solver);
    if (mdp.uniformisation_rate > 0.0) {
      if (std::optional<NumericResult> result = continuous_time(f, solver)) return std::move(*result);
    }
    switch (op.path) {
      case Path::until: {
        StateSet phi = boolean(f.operands[0]), psi = boolean(f.operands[1]);
        if (op.lower_step_bound) return interval_until(f, dir, solver, phi, psi);
        if (op.step_bound) {
          return compute_bounded_until(mdp, c_.search, dir, phi, psi, steps(*op.step_bound), solver, c_.device);
        }
        if (c_.keep_scheduler && !fair_minimum(dir)) last_query_ = QueryInputs{dir, phi, psi, nullptr};
        return unbounded_until(dir, phi, psi, solver);
      }
      case Path::next: return compute_next(mdp, dir, boolean(f.operands[0]));
      case Path::reachability_reward: {
        StateSet target = boolean(f.operands[0]);
        const std::optional<StateSet> constraint = reward_constraint(f);
        // A scheduler is exported for R[F] only (the constrained query's would need its
        // constraint in the scheduler's construction).
        last_query_.reset();
        if (c_.keep_scheduler && !constraint) last_query_ = QueryInputs{dir, std::nullopt, target, &reward_structure(f)};
        return compute_reachability_reward(mdp, c_.search, dir, reward_structure(f), target, solver, c_.device,
                                           constraint ? &*constraint : nullptr);
      }
      case Path::cumulative_reward:
        return compute_cumulative_reward(mdp, dir, reward_structure(f), steps(*op.step_bound), solver, c_.device);
      case Path::long_run_reward: return long_run(f, dir, solver);
      case Path::total_reward:
        return compute_total_reward(mdp, c_.search, dir, reward_structure(f), solver, c_.device);
      case Path::instantaneous_reward:
        return compute_instantaneous_reward(mdp, dir, reward_structure(f), steps(*op.step_bound), solver);
      case Path::ltl:
        if (op.kind == TemporalOperator::Kind::reward) {
          const LtlPath ltl = ltl_of(f);
          const std::optional<PlainUntil> until = plain_until_of(ltl.path, ltl.atoms);
          if (until && !until->complemented) {  // as R [ phi U psi ] (G phi: not co-safe, refused below)
            const bool constrained = ltl.path.op == PathFormula::Op::until;
            return compute_reachability_reward(mdp, c_.search, dir, reward_structure(f), until->psi, solver, c_.device,
                                               constrained ? &until->phi : nullptr);
          }
          return compute_ltl_reward(mdp, dir, reward_structure(f), ltl.path, ltl.atoms, solver, c_.device,
                                    c_.search.kind());
        }
        return ltl_probabilities(f, dir, solver);
      case Path::eventually_always:
      case Path::always_eventually:  // the parser gives them to E and A only
        fail(f.position, "not supported yet: LTL (F G and G F are read inside E and A only)");
    }
    return {};
  }

  // P [ G F phi ], [ F G phi ] and plain untils on the model itself
  // (engine/check/recurrence.h), other paths through an automaton's product.
  NumericResult ltl_probabilities(const Formula& f, Optimization dir, const SolverOptions& solver) {
    const auto [path, atoms] = ltl_of(f);
    if (const std::optional<PlainUntil> until = plain_until_of(path, atoms)) {  // as Path::until's
      if (!until->complemented) return unbounded_until(dir, until->phi, until->psi, solver);
      return complemented(unbounded_until(opposite(dir), until->phi, until->psi, solver));
    }
    const bool fair = fair_schedulers();  // a path's maximum too, unlike a reachability's
    if (const std::optional<Recurrence> recurrence = fair ? std::nullopt : recurrence_of(path, atoms)) {
      return compute_recurrence_probabilities(c_.mdp, c_.search, dir, *recurrence, solver, c_.device);
    }
    const bool chain = has_one_choice_per_state(c_.mdp.type);
    if (const std::optional<RecurrenceUnion> mixed =
            fair ? std::nullopt : recurrence_union_of(path, atoms, dir, chain)) {
      return compute_recurrence_union_probabilities(c_.mdp, c_.search, *mixed, solver, c_.device);
    }
    return compute_ltl_probabilities(c_.mdp, dir, path, atoms, solver, c_.device, c_.search.kind(), fair);
  }

  // P [ phi U psi ], unbounded: over fair schedulers only where --fair asks its minimum.
  NumericResult unbounded_until(Optimization dir, const StateSet& phi, const StateSet& psi,
                                const SolverOptions& solver) {
    if (fair_minimum(dir)) return compute_fair_minimal_until(c_.mdp, c_.search, phi, psi, solver, c_.device);
    return compute_until_probabilities(c_.mdp, c_.search, dir, phi, psi, solver, c_.device);
  }

  // --fair: over an MDP's fair schedulers only (engine/check/fairness.h).
  bool fair_schedulers() const { return c_.fairness && c_.mdp.type == ModelType::mdp; }
  // --fair changes a reachability's minimum only.
  bool fair_minimum(Optimization dir) const {
    return fair_schedulers() && dir == Optimization::minimize;
  }

  // P>=1, P>0, P<1 and P<=0 of an unbounded until are decided by the graph algorithms
  // alone; nullopt for other bounds.
  std::optional<StateSet> qualitative_until(const Formula& f, Optimization dir, Comparison c, double threshold) {
    bool one = threshold == 1.0, zero = threshold == 0.0;
    bool asks_yes = (c == Comparison::greater_equal && one) || (c == Comparison::less && one);
    bool asks_no = (c == Comparison::greater && zero) || (c == Comparison::less_equal && zero);
    if (!asks_yes && !asks_no) return std::nullopt;
    StateSet phi = boolean(f.operands[0]), psi = boolean(f.operands[1]);
    NumericResult detail;
    auto start = std::chrono::steady_clock::now();
    graph::QualitativePartition partition = qualitative_partition(c_.search, dir, phi, psi);
    detail.qualitative = {partition.yes.count(), partition.no.count(), partition.maybe.count(), seconds_since(start),
                          to_string(c_.search.kind())};
    last_ = std::move(detail);
    if (c == Comparison::greater_equal) return std::move(partition.yes);  // P = 1
    if (c == Comparison::less) return ~partition.yes;                    // P < 1
    if (c == Comparison::greater) return ~partition.no;                  // P > 0
    return std::move(partition.no);                                      // P = 0
  }

  const CheckContext& c_;
  std::optional<NumericResult> last_;  // the last numerical computation's summary
  std::optional<QueryInputs> last_query_;  // with keep_scheduler
};

}  // namespace

PropertyResult check_property(const Formula& property, const CheckContext& context) {
  return Checker(context).top(property);
}

}  // namespace mdpvi
