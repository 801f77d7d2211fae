#include "engine/check/multi_objective.h"

#include "engine/automata/path_automaton.h"
#include "engine/check/ltl_product.h"
#include "engine/check/pareto_front.h"
#include "engine/solve/end_component_quotient.h"
#include "graph/end_components.h"

#include <glpk.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

namespace mdpvi {

namespace {

// Whether the propositional formula f (atoms, negation, conjunction, disjunction) holds
// of a state with this letter (letters_of's bits); nothing where f is not propositional.
std::optional<bool> holds(const PathFormula& f, std::uint64_t letter) {
  switch (f.op) {
    case PathFormula::Op::state: return ((letter >> f.state) & 1) != 0;
    case PathFormula::Op::negation: {
      const std::optional<bool> a = holds(f.operands[0], letter);
      return a ? std::optional<bool>(!*a) : std::nullopt;
    }
    case PathFormula::Op::conjunction:
    case PathFormula::Op::disjunction: {
      const std::optional<bool> a = holds(f.operands[0], letter), b = holds(f.operands[1], letter);
      if (!a || !b) return std::nullopt;
      return f.op == PathFormula::Op::conjunction ? *a && *b : *a || *b;
    }
    default: return std::nullopt;
  }
}

// G F phi (Büchi) or F G phi (co-Büchi), both unbounded, phi propositional.
enum class Limit { none, buchi, co_buchi };
struct LimitPath {
  Limit limit = Limit::none;
  const PathFormula* phi = nullptr;
};
LimitPath limit_path_of(const PathFormula& path) {
  using Op = PathFormula::Op;
  const bool g_f = path.op == Op::always, f_g = path.op == Op::eventually;
  if ((!g_f && !f_g) || path.bounded()) return {};
  const PathFormula& inner = path.operands[0];
  if (inner.op != (g_f ? Op::eventually : Op::always) || inner.bounded()) return {};
  if (!holds(inner.operands[0], 0).has_value()) return {};
  return {g_f ? Limit::buchi : Limit::co_buchi, &inner.operands[0]};
}

bool maximises(const MultiObjective& o);

// What one objective knows of a path so far: an until's status (pending, met, failed:
// it changes at most once) or a co-safe path's state in its automaton's deterministic
// first part (met where that accepts every continuation, failed at the sink). A safety
// path is tracked by its co-safe negation, its value flipped. Reward objectives: 0, or
// under a step bound k the steps taken, up to k (then nothing more is earned).
// G F and F G of a propositional phi are tracked as objectives to maximise: where the
// objective is to be minimised, or bounded from above, as the other of the two over
// !phi, flipped (P(G F phi) = 1 - P(F G !phi) for every scheduler). Büchi (G F):
// nothing to track, always pending; its value is the flow into stops in end components
// with a phi state (quotient_program). Co-Büchi (F G): the scheduler may commit at any
// step (a row's copy), and a committed path fails at a !phi state: a stop where it is
// committed stays among phi states forever (the limit-deterministic automaton of F G,
// its guess the scheduler's; Sickert, Esparza, Jaax and Kretinsky, CAV 2016).
// Any other LTL path (omega): its limit-deterministic automaton's state, of the path or,
// to minimise or bounded from above, of its negation, flipped. Its jumps are rows of
// their own (moves at the pair's model state that earn nothing), so the scheduler
// guesses; a guess can only lose a path, which is why it is tracked to maximise, and
// the best guesses lose none (schedulers with finite memory suffice, Etessami et al.,
// and on the finite chain such a scheduler makes, a semi-deterministic automaton's
// guesses meet the path with its probability: Courcoubetis and Yannakakis, J. ACM 1995).
class ObjectiveTracker {
 public:
  enum : std::uint32_t { kPending = 0, kMet = 1, kFailed = 2 };  // co-Büchi: kMet is committed

  // n: the model's states.
  ObjectiveTracker(const MultiObjective& o, std::uint32_t n) : o_(&o) {
    if (!o.ltl) return;
    if (const LimitPath path = limit_path_of(*o.ltl); path.limit != Limit::none) {
      const bool as_written = maximises(o);
      limit_ = as_written ? path.limit : path.limit == Limit::buchi ? Limit::co_buchi : Limit::buchi;
      limit_phi_ = path.phi;
      limit_negated_ = flipped_ = !as_written;
      letters_ = letters_of(n, o.atoms);
      return;
    }
    const auto count = static_cast<std::uint32_t>(o.atoms.size());
    automaton_ = automata::automaton_for(*o.ltl, count);
    if (!automaton_->co_safe()) {
      auto negated = automata::automaton_for(PathFormula::unary(PathFormula::Op::negation, *o.ltl), count);
      // Neither co-safe nor safety: the whole limit-deterministic automaton, of the path
      // as tracked (to maximise).
      omega_ = !negated->co_safe();
      if (!omega_ || !maximises(o)) {
        automaton_ = std::move(negated);
        flipped_ = true;
      }
    }
    letters_ = letters_of(n, o.atoms);
  }

  // The value is 1 - the probability of met.
  bool flipped() const { return flipped_ != o_->complement; }
  // G F or F G (as tracked).
  bool limit() const { return limit_ != Limit::none; }
  // G F phi (as tracked): met by staying in an end component with a phi state.
  bool buchi() const { return limit_ == Limit::buchi; }
  // Pre: limit(). Whether the model state t is a phi state (of the objective as tracked).
  bool visits(std::uint32_t t) const { return *holds(*limit_phi_, letter(t)) != limit_negated_; }
  // Whether a row from v has a copy that commits (F G, not committed yet).
  bool may_commit(std::uint32_t v) const { return limit_ == Limit::co_buchi && v == kPending; }
  // A path tracked by its whole limit-deterministic automaton: met at stops in end
  // components that lie in the automaton's accepting component and see every mark of
  // its guess (staying, a scheduler visits each of their pairs forever).
  bool omega() const { return omega_; }
  // Where the automaton may jump from v (omega() only): each target a row of its own.
  std::vector<std::uint32_t> jumps(std::uint32_t v) {
    if (!omega_ || v == automata::PathAutomaton::kRejecting || automaton_->in_accepting_component(v)) return {};
    return automaton_->jumps(v);  // a copy: later steps may grow the automaton's tables
  }
  bool in_accepting_part(std::uint32_t v) const {
    return v != automata::PathAutomaton::kRejecting && automaton_->in_accepting_component(v);
  }
  std::uint32_t marks(std::uint32_t v) const { return automaton_->marks(v); }
  std::uint32_t all_marks(std::uint32_t v) const { return automaton_->all_marks(v); }

  // After the path's first state t; after t, from v (commit: the row's committing copy).
  std::uint32_t start(std::uint32_t t) {
    if (o_->reward || limit()) return kPending;  // no step taken yet, or not committed
    if (automaton_) return automaton_->step(automaton_->initial(), letter(t));
    return classify(t);
  }
  std::uint32_t next(std::uint32_t v, std::uint32_t t, bool commit = false) {
    if (o_->reward) return o_->reward_steps ? std::min(v + 1, *o_->reward_steps) : 0;
    if (buchi()) return kPending;
    if (limit_ == Limit::co_buchi) {
      if (v == kFailed || (v == kPending && !commit)) return v;
      return visits(t) ? kMet : kFailed;
    }
    if (automaton_) return automaton_->step(v, letter(t));
    return v == kPending ? classify(t) : v;
  }
  // Where a stop counts the objective's path met (F G: committed).
  bool met(std::uint32_t v) const {
    if (o_->reward || buchi()) return false;
    return automaton_ ? automaton_->universal(v) : v == kMet;
  }
  // Whether a reward objective still earns at v (always, without a step bound).
  bool earns(std::uint32_t v) const {
    return o_->reward && !(o_->reward_steps && v >= *o_->reward_steps);
  }
  bool decided(std::uint32_t v) const {
    if (o_->reward) return !earns(v);
    if (buchi()) return false;
    if (limit_ == Limit::co_buchi) return v == kFailed;
    return automaton_ ? v == automata::PathAutomaton::kRejecting || automaton_->universal(v) : v != kPending;
  }

 private:
  std::uint32_t classify(std::uint32_t t) const { return o_->psi.test(t) ? kMet : !o_->phi.test(t) ? kFailed : kPending; }
  std::uint64_t letter(std::uint32_t t) const { return letters_[t]; }

  const MultiObjective* o_;
  std::unique_ptr<automata::PathAutomaton> automaton_;  // a pointer: the trackers move in their vector
  Limit limit_ = Limit::none;                          // G F or F G, as tracked
  const PathFormula* limit_phi_ = nullptr;             // its phi, in o_'s path
  bool limit_negated_ = false;                         // tracked over !phi
  std::vector<std::uint64_t> letters_;
  bool flipped_ = false;
  bool omega_ = false;  // automaton_ is the path's limit-deterministic automaton, jumps and all
};

// The model paired with every objective's tracker value (the values of one pair
// interned as one status number).
struct StatusProduct {
  SparseMdp mdp;
  std::vector<std::uint32_t> model_state;  // per pair
  std::vector<std::vector<char>> met;      // per objective, per pair
  std::vector<std::vector<char>> earns;    // per objective, per pair: its rewards still count
  std::vector<std::vector<std::uint32_t>> tracked;  // per objective, per pair: its tracker's value
  PodVector<std::uint64_t> model_row;      // per product row: the model's, or LtlProduct::kNoRow (a stop, a jump)
  std::vector<char> jump;                  // per product row: an automaton's jump, which earns nothing
};

class StatusProductBuilder {
 public:
  StatusProductBuilder(const SparseMdp& mdp, std::vector<ObjectiveTracker>& trackers) : mdp_(mdp), trackers_(trackers) {}

  StatusProduct build(std::uint32_t initial) {
    std::vector<std::uint32_t> first;
    for (ObjectiveTracker& tracker : trackers_) first.push_back(tracker.start(initial));
    pair_of(initial, status_of(first));
    StatusProduct p;
    p.mdp.type = ModelType::mdp;
    p.mdp.row_group_starts.push_back(0);
    p.mdp.row_starts.push_back(0);
    PodVector<double> values;
    std::vector<std::uint32_t> after(trackers_.size());
    for (std::uint32_t i = 0; i < pairs_.size(); ++i) {
      const auto [s, status] = pairs_[i];
      if (decided(status)) {  // nothing after it counts: a stop (a self-loop, then collapsed)
        p.mdp.columns.push_back(i);
        values.push_back(1.0);
        p.mdp.row_starts.push_back(p.mdp.columns.size());
        p.model_row.push_back(LtlProduct::kNoRow);
        p.jump.push_back(0);
        p.mdp.row_group_starts.push_back(p.mdp.row_starts.size() - 1);
        continue;
      }
      // Each row once per set of the F G objectives that commit on it (none: as it is).
      std::vector<std::size_t> committing;
      for (std::size_t o = 0; o < trackers_.size(); ++o) {
        if (trackers_[o].may_commit(statuses_[status][o])) committing.push_back(o);
      }
      for (std::uint64_t r = mdp_.row_group_starts[s]; r < mdp_.row_group_starts[s + 1]; ++r) {
        for (std::uint32_t set = 0; set < (1u << committing.size()); ++set) {
          for (std::uint64_t k = mdp_.row_starts[r]; k < mdp_.row_starts[r + 1]; ++k) {
            const std::uint32_t t = mdp_.columns[k];
            for (std::size_t o = 0; o < trackers_.size(); ++o) after[o] = trackers_[o].next(statuses_[status][o], t);
            for (std::size_t j = 0; j < committing.size(); ++j) {
              const std::size_t o = committing[j];
              if ((set >> j) & 1) after[o] = trackers_[o].next(statuses_[status][o], t, /*commit=*/true);
            }
            p.mdp.columns.push_back(pair_of(t, status_of(after)));
            values.push_back(mdp_.values[k]);
          }
          p.mdp.row_starts.push_back(p.mdp.columns.size());
          p.model_row.push_back(r);
          p.jump.push_back(0);
        }
      }
      add_jumps(s, status, p, values);
      p.mdp.row_group_starts.push_back(p.mdp.row_starts.size() - 1);
    }
    p.mdp.values = CompactValues(std::move(values));
    p.mdp.initial_states = {0};
    p.met.assign(trackers_.size(), std::vector<char>(pairs_.size(), 0));
    p.earns = p.met;
    p.tracked.assign(trackers_.size(), std::vector<std::uint32_t>(pairs_.size(), 0));
    for (std::uint32_t i = 0; i < pairs_.size(); ++i) {
      p.model_state.push_back(pairs_[i].first);
      for (std::size_t o = 0; o < trackers_.size(); ++o) {
        const std::uint32_t v = statuses_[pairs_[i].second][o];
        p.met[o][i] = trackers_[o].met(v);
        p.earns[o][i] = trackers_[o].earns(v);
        p.tracked[o][i] = v;
      }
    }
    return p;
  }

 private:
  // The rows of the pair (s, status) that jump an objective's automaton (one objective
  // each; the others jump on later rows, at the same model state).
  void add_jumps(std::uint32_t s, std::uint32_t status, StatusProduct& p, PodVector<double>& values) {
    for (std::size_t o = 0; o < trackers_.size(); ++o) {
      for (const std::uint32_t target : trackers_[o].jumps(statuses_[status][o])) {
        std::vector<std::uint32_t> after = statuses_[status];
        after[o] = target;
        p.mdp.columns.push_back(pair_of(s, status_of(after)));
        values.push_back(1.0);
        p.mdp.row_starts.push_back(p.mdp.columns.size());
        p.model_row.push_back(LtlProduct::kNoRow);
        p.jump.push_back(1);
      }
    }
  }

  std::uint32_t status_of(const std::vector<std::uint32_t>& values) {
    auto [it, added] = status_numbers_.try_emplace(values, static_cast<std::uint32_t>(statuses_.size()));
    if (added) statuses_.push_back(values);
    return it->second;
  }

  // Every objective's tracker is decided (no reward objective): the rest changes nothing.
  bool decided(std::uint32_t status) const {
    for (std::size_t o = 0; o < trackers_.size(); ++o) {
      if (!trackers_[o].decided(statuses_[status][o])) return false;
    }
    return true;
  }

  std::uint32_t pair_of(std::uint32_t s, std::uint32_t status) {
    const std::uint64_t key = (static_cast<std::uint64_t>(status) << 32) | s;
    auto [it, added] = index_.try_emplace(key, static_cast<std::uint32_t>(pairs_.size()));
    if (added) pairs_.emplace_back(s, status);
    return it->second;
  }

  const SparseMdp& mdp_;
  std::vector<ObjectiveTracker>& trackers_;
  std::vector<std::vector<std::uint32_t>> statuses_;
  std::map<std::vector<std::uint32_t>, std::uint32_t> status_numbers_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;
};

// A linear expression over the collapsed model's rows (the LP's variables), plus a constant.
struct Linear {
  double constant = 0.0;
  std::vector<double> coefficient;  // per row
};

// Visits count from this: below it, the linear program's rounding.
constexpr double kEnteredAtAll = 1e-9;

struct LpDeleter {
  void operator()(glp_prob* lp) const { glp_delete_prob(lp); }
};

class MultiObjectiveLp {
 public:
  explicit MultiObjectiveLp(const SparseMdp& q) : q_(q), lp_(glp_create_prob()) {
    glp_term_out(GLP_OFF);
    glp_add_cols(lp_.get(), static_cast<int>(q.num_choices()));
    for (int j = 1; j <= static_cast<int>(q.num_choices()); ++j) glp_set_col_bnds(lp_.get(), j, GLP_LO, 0.0, 0.0);
    add_flow();
  }

  // The constraint low <= e (or e <= high).
  void bound(const Linear& e, Comparison c, double threshold) {
    const bool lower = c == Comparison::greater || c == Comparison::greater_equal;
    add_row(e.coefficient, lower ? GLP_LO : GLP_UP, threshold - e.constant);
  }

  // Optimises e; returns its value, or nothing where the constraints cannot be met.
  // Throws where the optimum is unbounded.
  std::optional<double> solve(const Linear* e, Optimization direction) {
    std::vector<double> objective(q_.num_choices(), 0.0);
    if (e != nullptr) objective = e->coefficient;
    if (!run(objective, direction)) return std::nullopt;
    return e != nullptr ? value_of(*e) : 0.0;
  }

  // Maximises the sum of coefficient[r] * uses of row r; false where the constraints
  // cannot be met. The matrix is loaded once; each later run starts from the last basis.
  bool run(const std::vector<double>& coefficient, Optimization direction) {
    glp_set_obj_dir(lp_.get(), direction == Optimization::maximize ? GLP_MAX : GLP_MIN);
    for (std::size_t r = 0; r < coefficient.size(); ++r) glp_set_obj_coef(lp_.get(), static_cast<int>(r + 1), coefficient[r]);
    if (!loaded_) {
      glp_load_matrix(lp_.get(), static_cast<int>(ia_.size() - 1), ia_.data(), ja_.data(), ar_.data());
      glp_adv_basis(lp_.get(), 0);  // a starting basis after Bixby (bench/NOTES.md: fewer pivots)
      loaded_ = true;
    }
    glp_smcp parameters;
    glp_init_smcp(&parameters);
    // Without the presolver: with it, GLPK took bounds a millionth past the optimum as met
    // (tests/multi_objective_test.cpp); these programs are small.
    parameters.presolve = GLP_OFF;
    parameters.msg_lev = GLP_MSG_OFF;
    const int error = glp_simplex(lp_.get(), &parameters);
    if (error != 0) throw std::runtime_error("multi(...): the linear program failed (GLPK error " + std::to_string(error) + ")");
    const int status = glp_get_status(lp_.get());
    if (status == GLP_NOFEAS) return false;
    if (status == GLP_UNBND) throw std::runtime_error("multi(...): the optimum is unbounded (an infinite reward)");
    if (status != GLP_OPT) throw std::runtime_error("multi(...): the linear program found no optimum");
    return true;
  }

  // e at the last run's solution.
  double value_of(const Linear& e) const {
    double sum = e.constant;
    for (std::size_t r = 0; r < e.coefficient.size(); ++r) {
      if (e.coefficient[r] != 0.0) sum += e.coefficient[r] * glp_get_col_prim(lp_.get(), static_cast<int>(r + 1));
    }
    return sum;
  }

 private:
  // Per state: the uses of its rows minus the flow into it equal 1 at the initial
  // state, else 0.
  void add_flow() {
    const std::uint32_t n = q_.num_states();
    const int first = glp_add_rows(lp_.get(), static_cast<int>(n));
    for (std::uint32_t s = 0; s < n; ++s) {
      const double start = s == q_.initial_states[0] ? 1.0 : 0.0;
      glp_set_row_bnds(lp_.get(), first + static_cast<int>(s), GLP_FX, start, start);
    }
    ia_.push_back(0);
    ja_.push_back(0);
    ar_.push_back(0.0);
    std::vector<std::pair<std::uint32_t, double>> column;
    for (std::uint32_t s = 0; s < n; ++s) {
      for (std::uint64_t r = q_.row_group_starts[s]; r < q_.row_group_starts[s + 1]; ++r) {
        column.assign(1, {s, 1.0});
        for (std::uint64_t k = q_.row_starts[r]; k < q_.row_starts[r + 1]; ++k) column.emplace_back(q_.columns[k], -q_.values[k]);
        std::sort(column.begin(), column.end());
        for (std::size_t k = 0; k < column.size(); ++k) {
          if (k + 1 < column.size() && column[k + 1].first == column[k].first) {
            column[k + 1].second += column[k].second;  // a self-loop or a repeated successor
            continue;
          }
          if (column[k].second == 0.0) continue;
          ia_.push_back(first + static_cast<int>(column[k].first));
          ja_.push_back(static_cast<int>(r + 1));
          ar_.push_back(column[k].second);
        }
      }
    }
  }

  void add_row(const std::vector<double>& coefficient, int type, double value) {
    const int row = glp_add_rows(lp_.get(), 1);
    glp_set_row_bnds(lp_.get(), row, type, value, value);
    for (std::size_t r = 0; r < coefficient.size(); ++r) {
      if (coefficient[r] == 0.0) continue;
      ia_.push_back(row);
      ja_.push_back(static_cast<int>(r + 1));
      ar_.push_back(coefficient[r]);
    }
  }

  const SparseMdp& q_;
  std::unique_ptr<glp_prob, LpDeleter> lp_;
  std::vector<int> ia_, ja_;
  std::vector<double> ar_;
  bool loaded_ = false;
};

// The Pareto front of the queried objectives (pareto_front.h), each's sign 1 where it
// is to maximise and -1 where to minimise: its vertices, by weighted sums over lp.
std::vector<std::vector<double>> pareto_front(MultiObjectiveLp& lp, const std::vector<const Linear*>& objectives,
                                              const std::vector<double>& sign) {
  const WeightedBest best = [&](const std::vector<double>& weights) -> std::optional<ParetoPoint> {
    std::vector<double> coefficient(objectives[0]->coefficient.size(), 0.0);
    for (std::size_t i = 0; i < objectives.size(); ++i) {
      for (std::size_t r = 0; r < coefficient.size(); ++r) coefficient[r] += weights[i] * sign[i] * objectives[i]->coefficient[r];
    }
    if (!lp.run(coefficient, Optimization::maximize)) return std::nullopt;
    ParetoPoint p(objectives.size());
    for (std::size_t i = 0; i < objectives.size(); ++i) p[i] = sign[i] * lp.value_of(*objectives[i]);
    return p;
  };
  std::vector<std::vector<double>> points = pareto_vertices(objectives.size(), best);
  for (std::vector<double>& p : points) {
    for (std::size_t i = 0; i < p.size(); ++i) p[i] *= sign[i];
  }
  std::sort(points.begin(), points.end());
  return points;
}

bool maximises(const MultiObjective& o) {
  if (o.query) return *o.query == Optimization::maximize;
  return *o.comparison == Comparison::greater || *o.comparison == Comparison::greater_equal;
}

// Each reward objective's rewards on the product's rows (none for the others), 0 on
// the rows of pairs where it no longer earns (past its step bound) and on jumps (no step
// of the model: the state's reward is earned on the row that leaves it).
std::vector<std::optional<RewardStructure>> lifted_rewards(const StatusProduct& product,
                                                           const std::vector<MultiObjective>& objectives) {
  std::vector<std::optional<RewardStructure>> lifted(objectives.size());
  const SparseMdp& p = product.mdp;
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    if (!objectives[i].reward) continue;
    RewardStructure on_pairs = rewards_on_pairs(*objectives[i].rewards, p, product.model_state, product.model_row);
    PodVector<double> counted(p.num_choices());
    for (std::uint32_t s = 0; s < p.num_states(); ++s) {
      for (std::uint64_t r = p.row_group_starts[s]; r < p.row_group_starts[s + 1]; ++r) {
        counted[r] = product.earns[i][s] && !product.jump[r] ? on_pairs.choice_rewards[r] : 0.0;
      }
    }
    on_pairs.choice_rewards = CompactValues(std::move(counted));
    lifted[i] = std::move(on_pairs);
  }
  return lifted;
}

// Which of the whole product's end components (all) earn rewards on one of their own rows.
std::vector<char> earning_components(const SparseMdp& p, const graph::EndComponents& all, const RewardStructure& rewards) {
  std::vector<char> earns(all.count, 0);
  for (std::uint32_t s = 0; s < p.num_states(); ++s) {
    for (std::uint64_t r = p.row_group_starts[s]; r < p.row_group_starts[s + 1]; ++r) {
      if (all.internal_rows.test(r) && rewards.choice_rewards[r] != 0.0) earns[all.component_of[s]] = 1;
    }
  }
  return earns;
}

// A reward to maximise that some end component earns may be infinite (stay there
// forever). Refused, except for `allowed` (a numerical query's, the only reward
// objective, whose infinity enters_where_it_earns decides); returns whether that one
// is earned in an end component. all: the product's end components.
bool refuse_infinite_maxima(const SparseMdp& p, const std::vector<MultiObjective>& objectives,
                            const std::vector<std::optional<RewardStructure>>& lifted, std::optional<std::size_t> allowed,
                            const graph::EndComponents& all) {
  bool allowed_earns = false;
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    if (!lifted[i] || !maximises(objectives[i])) continue;
    const std::vector<char> earns = earning_components(p, all, *lifted[i]);
    if (std::find(earns.begin(), earns.end(), 1) == earns.end()) continue;
    if (allowed && i == *allowed) {
      allowed_earns = true;
      continue;
    }
    throw std::runtime_error("not supported yet: a total reward to maximise in multi(...) that is earned inside an "
                             "end component (staying there forever: an infinite maximum), other than as the one query "
                             "and the only reward objective");
  }
  return allowed_earns;
}

// The rows that earn nothing in any reward objective but `skipped`: a scheduler may stay
// forever in an end component of these alone, at no cost to them. Where a row earns
// something, staying forever costs infinitely much, which no cost to minimise or bound
// from above allows: the linear program's expected uses are finite, so it keeps no such
// stay.
StateSet rows_earning_nothing(const SparseMdp& p, const std::vector<std::optional<RewardStructure>>& lifted,
                              std::optional<std::size_t> skipped = std::nullopt) {
  StateSet rows = all_states(p.num_choices());
  for (std::size_t i = 0; i < lifted.size(); ++i) {
    if (!lifted[i] || (skipped && i == *skipped)) continue;
    for (std::uint64_t r = 0; r < p.num_choices(); ++r) {
      if (lifted[i]->choice_rewards[r] != 0.0) rows.reset(r);
    }
  }
  return rows;
}

// Per end component of mecs: whether objective i's path (tracked by its whole
// automaton) is met by staying there.
std::vector<char> components_accepting(const StatusProduct& product, std::size_t i, const ObjectiveTracker& tracker,
                                       const graph::EndComponents& mecs) {
  const std::vector<std::uint32_t>& v = product.tracked[i];
  return components_seeing_every_mark(
      mecs, product.mdp.num_states(), [&](std::uint32_t p) { return tracker.in_accepting_part(v[p]); },
      [&](std::uint32_t p) { return tracker.marks(v[p]); }, [&](std::uint32_t p) { return tracker.all_marks(v[p]); });
}

// Per end component of mecs: whether it holds a pair whose model state is a phi state
// of tracker's G F phi. Staying in the component forever, a scheduler visits each of its
// states infinitely often, so every such objective is met at once (Etessami et al.'s
// reduction of Büchi objectives to the end components reached).
std::vector<char> components_visiting(const StatusProduct& product, const ObjectiveTracker& tracker,
                                      const graph::EndComponents& mecs) {
  std::vector<char> visiting(mecs.count, 0);
  for (std::uint32_t s = 0; s < product.mdp.num_states(); ++s) {
    const std::uint32_t c = mecs.component_of[s];
    if (c != graph::EndComponents::kNone && tracker.visits(product.model_state[s])) visiting[c] = 1;
  }
  return visiting;
}

// The product with mecs (its end components, or some of them) collapsed, each with its
// stop row, and each objective as a linear expression over the collapsed model's rows.
struct QuotientProgram {
  CollapsedModel collapsed;
  std::vector<Linear> values;
};

QuotientProgram quotient_program(const StatusProduct& product, const std::vector<ObjectiveTracker>& trackers,
                                 const std::vector<MultiObjective>& objectives,
                                 const std::vector<std::optional<RewardStructure>>& lifted,
                                 const graph::EndComponents& mecs) {
  const SparseMdp& p = product.mdp;
  QuotientProgram program{collapse_end_components(p, mecs, nullptr, /*with_stop_rows=*/true), {}};
  program.collapsed.mdp.initial_states = {0};  // pair 0 is the initial state's (the quotient keeps the numbers)
  const SparseMdp& q = program.collapsed.mdp;
  program.values.resize(objectives.size());
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    Linear& e = program.values[i];
    e.coefficient.assign(q.num_choices(), 0.0);
    if (lifted[i]) {
      const RewardStructure collapsed = collapse_end_components(p, mecs, &*lifted[i], true).rewards;
      for (std::uint64_t r = 0; r < q.num_choices(); ++r) e.coefficient[r] = collapsed.choice_rewards[r];
      continue;
    }
    // Where staying decides the path: the end components whose stops meet it.
    const bool by_component = trackers[i].buchi() || trackers[i].omega();
    const std::vector<char> credited = trackers[i].buchi()   ? components_visiting(product, trackers[i], mecs)
                                       : trackers[i].omega() ? components_accepting(product, i, trackers[i], mecs)
                                                             : std::vector<char>{};
    const auto met_by_stop = [&](std::uint32_t s) {
      if (!by_component) return product.met[i][s] != 0;
      return mecs.component_of[s] != graph::EndComponents::kNone && credited[mecs.component_of[s]] != 0;
    };
    for (std::uint32_t s = 0; s < q.num_states(); ++s) {
      for (std::uint64_t r = q.row_group_starts[s]; r < q.row_group_starts[s + 1]; ++r) {
        if (q.row_starts[r] == q.row_starts[r + 1] && met_by_stop(s)) {
          e.coefficient[r] = 1.0;  // a stop where the objective's path is met
        }
      }
    }
    if (trackers[i].flipped()) {
      e.constant = 1.0;
      for (double& c : e.coefficient) c = -c;
    }
  }
  return program;
}

// The product with the end components `stops` collapsed (each may stop), maximising
// objective(collapsed model) (none: any feasible point) under the bounds of every
// objective but `query`; what solve gives.
std::optional<double> solve_with_stops(const StatusProduct& product, const std::vector<ObjectiveTracker>& trackers,
                                       const std::vector<MultiObjective>& objectives,
                                       const std::vector<std::optional<RewardStructure>>& lifted, std::size_t query,
                                       const graph::EndComponents& stops,
                                       const std::function<Linear(const SparseMdp&)>& objective = {}) {
  const QuotientProgram program = quotient_program(product, trackers, objectives, lifted, stops);
  MultiObjectiveLp lp(program.collapsed.mdp);
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    if (i != query) lp.bound(program.values[i], *objectives[i].comparison, objectives[i].threshold);
  }
  if (!objective) return lp.solve(nullptr, Optimization::maximize);
  const Linear e = objective(program.collapsed.mdp);
  return lp.solve(&e, Optimization::maximize);
}

// Whether the bounds of every objective but `query` (a reward to minimise) can be met
// where a scheduler may also stay forever in end components that earn `query` (but no
// other reward objective, whose bound would lose those costs): then a least reward that
// no finite-cost scheduler reaches is infinite. components_of: the end components of a
// set of rows.
bool met_by_staying(const StatusProduct& product, const std::vector<ObjectiveTracker>& trackers,
                    const std::vector<MultiObjective>& objectives,
                    const std::vector<std::optional<RewardStructure>>& lifted, std::size_t query,
                    const std::function<graph::EndComponents(const StateSet&)>& components_of) {
  const graph::EndComponents stops = components_of(rows_earning_nothing(product.mdp, lifted, query));
  return solve_with_stops(product, trackers, objectives, lifted, query, stops).has_value();
}

// Whether a scheduler that meets the bounds of every objective but `query` (a reward to
// maximise, the only reward objective) enters an end component that earns it with
// positive probability: the maximum is then infinite (go round the component as often
// as one likes, then on as that scheduler would; the bounds still hold).
bool enters_where_it_earns(const StatusProduct& product, const std::vector<ObjectiveTracker>& trackers,
                           const std::vector<MultiObjective>& objectives,
                           const std::vector<std::optional<RewardStructure>>& lifted, std::size_t query,
                           const graph::EndComponents& all) {
  const std::vector<char> earns = earning_components(product.mdp, all, *lifted[query]);
  // The uses of the earning components' rows (the collapsed model keeps the states' numbers).
  const auto visits = [&](const SparseMdp& q) {
    Linear e;
    e.coefficient.assign(q.num_choices(), 0.0);
    for (std::uint32_t s = 0; s < q.num_states(); ++s) {
      if (all.component_of[s] == graph::EndComponents::kNone || !earns[all.component_of[s]]) continue;
      for (std::uint64_t r = q.row_group_starts[s]; r < q.row_group_starts[s + 1]; ++r) e.coefficient[r] = 1.0;
    }
    return e;
  };
  const std::optional<double> most = solve_with_stops(product, trackers, objectives, lifted, query, all, visits);
  return most && *most > kEnteredAtAll;
}

// At most this many F G objectives (as tracked): each row has a copy per set of them.
constexpr std::size_t kMostCommitting = 3;

// At most kMostCommitting objectives tracked as F G. (Beside a reward objective, paths
// met by staying are credited at the stops of end components that earn nothing: a path
// that stays forever where something is earned costs infinitely much, which a bounded
// or least cost never allows, and a greatest reward earned there is infinite anyway.)
void refuse_what_limits_cannot_answer(const std::vector<ObjectiveTracker>& trackers) {
  std::size_t committing = 0;
  for (const ObjectiveTracker& tracker : trackers) committing += tracker.limit() && !tracker.buchi();
  if (committing > kMostCommitting) {
    throw std::runtime_error("not supported yet: more than " + std::to_string(kMostCommitting) +
                             " objectives of multi(...) tracked as F G (F G to maximise, G F to minimise)");
  }
}

// The objective of a query with one =? that maximises a reward, where no other
// objective is a reward: its maximum may be infinite, and that is decided exactly.
std::optional<std::size_t> sole_reward_query_of(const std::vector<MultiObjective>& objectives) {
  std::optional<std::size_t> query;
  std::size_t queries = 0, rewards = 0;
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    queries += objectives[i].query.has_value();
    rewards += objectives[i].reward;
    if (objectives[i].query && objectives[i].reward && maximises(objectives[i])) query = i;
  }
  return queries == 1 && rewards == 1 ? query : std::nullopt;
}

}  // namespace

MultiObjectiveAnswer check_multi_objective(const SparseMdp& mdp, const std::vector<MultiObjective>& objectives) {
  if (mdp.initial_states.size() != 1) {
    throw std::runtime_error("multi(...) needs a model with one initial state, found " +
                             std::to_string(mdp.initial_states.size()));
  }
  std::vector<ObjectiveTracker> trackers;
  for (const MultiObjective& o : objectives) trackers.emplace_back(o, mdp.num_states());
  refuse_what_limits_cannot_answer(trackers);
  const StatusProduct product = StatusProductBuilder(mdp, trackers).build(mdp.initial_states[0]);
  const SparseMdp& p = product.mdp;
  const std::vector<std::optional<RewardStructure>> lifted = lifted_rewards(product, objectives);
  // The end components of rows (one decomposition each, made where first asked for).
  const auto components_of = [&](const StateSet& rows) {
    return graph::maximal_end_components(p, all_states(p.num_states()), rows, graph::SearchKind::cpu_parallel);
  };
  std::optional<graph::EndComponents> all_made;
  const auto all = [&]() -> const graph::EndComponents& {
    if (!all_made) all_made = components_of(all_states(p.num_choices()));
    return *all_made;
  };
  bool maximises_a_reward = false;
  for (std::size_t i = 0; i < objectives.size(); ++i) maximises_a_reward |= lifted[i] && maximises(objectives[i]);
  const std::optional<std::size_t> sole_reward_query = sole_reward_query_of(objectives);
  const bool query_earns_in_components =
      maximises_a_reward && refuse_infinite_maxima(p, objectives, lifted, sole_reward_query, all());
  const bool query_enters_where_it_earns =
      query_earns_in_components && enters_where_it_earns(product, trackers, objectives, lifted, *sole_reward_query, all());
  // Where the reward to maximise is earned only in end components that no scheduler
  // meeting the bounds enters, every end component may be collapsed: what they earn is
  // never collected. Where no row earns, the end components of the free rows are all.
  const StateSet free_rows = rows_earning_nothing(p, lifted);
  const bool collapse_all = query_earns_in_components || free_rows.count() == free_rows.size();
  std::optional<graph::EndComponents> free_components;
  if (!collapse_all) free_components = components_of(free_rows);
  const QuotientProgram program =
      quotient_program(product, trackers, objectives, lifted, collapse_all ? all() : *free_components);
  const std::vector<Linear>& values = program.values;
  const SparseMdp& q = program.collapsed.mdp;
  MultiObjectiveLp lp(q);
  std::vector<std::size_t> queries;
  for (std::size_t i = 0; i < objectives.size(); ++i) {
    if (objectives[i].query) {
      queries.push_back(i);
    } else {
      lp.bound(values[i], *objectives[i].comparison, objectives[i].threshold);
    }
  }
  MultiObjectiveAnswer answer;
  if (queries.size() >= 2) {
    std::vector<const Linear*> queried;
    std::vector<double> sign;
    for (std::size_t i : queries) {
      queried.push_back(&values[i]);
      sign.push_back(*objectives[i].query == Optimization::maximize ? 1.0 : -1.0);
    }
    answer.pareto = pareto_front(lp, queried, sign);
    return answer;
  }
  answer.numerical = queries.size() == 1;
  if (!answer.numerical) {
    answer.achievable = lp.solve(nullptr, Optimization::maximize).has_value();
    return answer;
  }
  const MultiObjective& query = objectives[queries[0]];
  if (query_enters_where_it_earns) {
    answer.value = std::numeric_limits<double>::infinity();
    return answer;
  }
  const std::optional<double> optimum = lp.solve(&values[queries[0]], *query.query);
  if (!optimum && query.reward && !maximises(query) &&
      met_by_staying(product, trackers, objectives, lifted, queries[0], components_of)) {
    answer.value = std::numeric_limits<double>::infinity();  // only a stay that earns forever meets the bounds
    return answer;
  }
  if (!optimum) {
    answer.bounds_unmet = true;  // PRISM's NaN
    answer.value = std::numeric_limits<double>::quiet_NaN();
    return answer;
  }
  answer.value = *optimum;
  if (!query.reward) answer.value = std::clamp(answer.value, 0.0, 1.0);
  return answer;
}

}  // namespace mdpvi
