#include "engine/check/recurrence.h"

#include "engine/check/reachability.h"
#include "engine/model/stopwatch.h"
#include "graph/almost_sure_buchi.h"
#include "graph/end_components.h"
#include "graph/forward_reach.h"
#include "graph/qualitative.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <string>
#include <tuple>
#include <utility>

namespace mdpvi {

namespace {

using Op = PathFormula::Op;
using Kind = Recurrence::Kind;

// f read as a boolean combination: negate(value) and join(op, a, b) for its negations,
// conjunctions and disjunctions, leaf(f) for anything else; nullopt where a leaf is.
template <typename T, typename Leaf, typename Negate, typename Join>
std::optional<T> fold_boolean(const PathFormula& f, const Leaf& leaf, const Negate& negate, const Join& join) {
  switch (f.op) {
    case Op::negation: {
      std::optional<T> a = fold_boolean<T>(f.operands[0], leaf, negate, join);
      if (!a) return std::nullopt;
      return negate(std::move(*a));
    }
    case Op::conjunction:
    case Op::disjunction: {
      std::optional<T> a = fold_boolean<T>(f.operands[0], leaf, negate, join);
      std::optional<T> b = a ? fold_boolean<T>(f.operands[1], leaf, negate, join) : std::nullopt;
      if (!b) return std::nullopt;
      return join(f.op, std::move(*a), std::move(*b));
    }
    default: return leaf(f);
  }
}

// f's states, where it is a boolean combination of atoms; nullopt where it holds a
// temporal operator.
std::optional<StateSet> states_of(const PathFormula& f, const std::vector<StateSet>& atoms) {
  return fold_boolean<StateSet>(
      f, [&](const PathFormula& g) { return g.op == Op::state ? std::optional<StateSet>(atoms[g.state]) : std::nullopt; },
      [](StateSet a) { return a.flip(); },
      [](Op op, StateSet a, StateSet b) { return std::optional<StateSet>(op == Op::conjunction ? a & b : a | b); });
}

// f's operand, where f is an unbounded op.
const PathFormula* unbounded_operand(const PathFormula& f, Op op) {
  return f.op == op && !f.bounded() ? &f.operands[0] : nullptr;
}

// The other recurrence over the complements: !(G F B & G F D) is F G !B | F G !D.
Recurrence negated(Recurrence path) {
  path.kind = path.kind == Kind::infinitely_often ? Kind::eventually_forever : Kind::infinitely_often;
  for (StateSet& set : path.sets) set.flip();
  return path;
}

// At most this many sets: F G's conjunctions multiply them.
constexpr std::size_t kMostSets = 64;

// The F G sets of (F G C1 | F G C2 | ...) & (F G D1 | ...): every pair's intersection
// (F G C & F G D is F G (C & D)); nullopt past kMostSets.
std::optional<std::vector<StateSet>> pairwise_intersections(const std::vector<StateSet>& a,
                                                           const std::vector<StateSet>& b) {
  if (a.size() * b.size() > kMostSets) return std::nullopt;
  std::vector<StateSet> pairs;
  for (const StateSet& c : a) {
    for (const StateSet& d : b) pairs.push_back(c & d);
  }
  return pairs;
}

// a & b or a | b (op) as one recurrence, where they make one.
std::optional<Recurrence> joined(Op op, Recurrence a, Recurrence b) {
  if (a.kind != b.kind) return std::nullopt;
  const bool infinitely_often = a.kind == Kind::infinitely_often;
  if (op == Op::conjunction ? infinitely_often : !infinitely_often) {
    a.sets.insert(a.sets.end(), b.sets.begin(), b.sets.end());
  } else if (infinitely_often) {  // G F B | G F D is G F (B | D); no more than that
    if (a.sets.size() != 1 || b.sets.size() != 1) return std::nullopt;
    a.sets[0] |= b.sets[0];
  } else {  // F G C & F G D is F G (C & D)
    std::optional<std::vector<StateSet>> pairs = pairwise_intersections(a.sets, b.sets);
    if (!pairs) return std::nullopt;
    a.sets = std::move(*pairs);
  }
  if (a.sets.size() > kMostSets) return std::nullopt;
  return a;
}

const char* text_of(Kind kind) { return kind == Kind::infinitely_often ? "G F" : "F G"; }

// Where the states that meet a G F path almost surely are looked for: among the
// states each set reaches. An end component that meets a set is reached from it (it is
// strongly connected), so those that meet every set lie there, and the almost-sure set
// found within them (graph::almost_sure_buchi) holds them all: Pmax is the same. The
// search gives up past an eighth of the model, where a set prunes too little to pay
// for it (coin8_2's "all_coins_equal_1" took 3 s on 16 cores to give up at half;
// bench/NOTES.md, session 30); leader8's "elected" reaches 8 states of 18.7M.
StateSet meeting_candidates(const SparseMdp& mdp, const Recurrence& path) {
  StateSet candidates = all_states(mdp.num_states());
  for (const StateSet& set : path.sets) {
    const auto start = std::chrono::steady_clock::now();
    const std::optional<StateSet> reached = graph::forward_reachable(mdp, set, mdp.num_states() / 8);
    if (reached) candidates &= *reached;
    spdlog::debug("G F: a set of {} states reaches {}: {:.3f} s", set.count(),
                  reached ? std::to_string(reached->count()) + " states" : std::string("more than an eighth of the model"),
                  seconds_since(start));
  }
  return candidates;
}

// The states of `set` from which some scheduler surely stays in it forever
// (graph::surely_staying). Every end component inside the set lies in them, and a scheduler that stays in the set
// from one of them ends in one (almost every run ends in an end component). One
// backward search, where a decomposition's SCCs label every state of the set. The
// search walks the complement's attractor, most of the model where the set is small:
// for a set of under an eighth of the model, nullopt (its end components, among its own
// states, cost less).
std::optional<StateSet> surely_stayable(const graph::SearchBackend& search, const StateSet& set) {
  if (set.count() < set.size() / 8) return std::nullopt;
  const auto start = std::chrono::steady_clock::now();
  StateSet stayable = graph::surely_staying(search, set);
  spdlog::debug("{} of a set's {} states can surely stay in it: {:.3f} s", stayable.count(), set.count(),
                seconds_since(start));
  return stayable;
}

// For F G set: states from which a scheduler keeps almost every run inside the set
// forever, and among them every end component inside it, so that Pmax(F G set) =
// Pmax(F these). Where the states that can surely stay were searched for, they are
// such states, and no decomposition is needed (coin6_2's F G !"all_coins_equal_1": its
// end components cost 0.37 s beside the search's 0.05; bench/NOTES.md, session 30);
// else the set's end components.
StateSet forever_inside(const graph::SearchBackend& search, const StateSet& set) {
  if (std::optional<StateSet> stayable = surely_stayable(search, set)) return std::move(*stayable);
  return graph::states_in_components(
      graph::maximal_end_components(search, set, all_states(search.mdp().num_choices())));
}

// States from which a scheduler meets the path almost surely, among them those of
// every end component in which a scheduler that stays meets it: Pmax(path) = Pmax(F
// these).
StateSet staying_states(const SparseMdp& mdp, const graph::SearchBackend& search, const Recurrence& path) {
  if (path.kind == Kind::infinitely_often) return graph::almost_sure_buchi(search, path.sets, meeting_candidates(mdp, path));
  StateSet staying(mdp.num_states());
  for (const StateSet& set : path.sets) staying |= forever_inside(search, set);
  return staying;
}

NumericResult maximal_probabilities(const SparseMdp& mdp, const graph::SearchBackend& search, const Recurrence& path,
                                    const SolverOptions& options, const DeviceOptions& device) {
  const auto start = std::chrono::steady_clock::now();
  const StateSet target = staying_states(mdp, search, path);
  spdlog::debug("{} of {} sets on the model, no product: {} of {} states meet it almost surely, {:.3f} s",
                text_of(path.kind), path.sets.size(), target.count(), mdp.num_states(), seconds_since(start));
  return compute_until_probabilities(mdp, search, Optimization::maximize, all_states(mdp.num_states()), target,
                                     options, device);
}

// At most this many terms in a disjunction of recurrences: conjunctions of
// disjunctions multiply them.
constexpr std::size_t kMostTerms = 64;

RecurrenceTerm term_of(Recurrence path) {
  RecurrenceTerm term;
  (path.kind == Kind::infinitely_often ? term.infinitely_often : term.eventually_forever) = std::move(path.sets);
  return term;
}

// a & b as one term: every G F set of both, and F G of each pair's intersection;
// nullopt past kMostSets.
std::optional<RecurrenceTerm> both_terms(RecurrenceTerm a, const RecurrenceTerm& b) {
  a.infinitely_often.insert(a.infinitely_often.end(), b.infinitely_often.begin(), b.infinitely_often.end());
  if (a.eventually_forever.empty()) {
    a.eventually_forever = b.eventually_forever;
  } else if (!b.eventually_forever.empty()) {
    std::optional<std::vector<StateSet>> pairs = pairwise_intersections(a.eventually_forever, b.eventually_forever);
    if (!pairs) return std::nullopt;
    a.eventually_forever = std::move(*pairs);
  }
  if (a.infinitely_often.size() > kMostSets) return std::nullopt;
  return a;
}

// f (negated where asked) as a disjunction of terms, by De Morgan's laws down to its
// G F and F G leaves; nullopt where a leaf is anything else or the terms are too many.
std::optional<std::vector<RecurrenceTerm>> terms_of(const PathFormula& f, bool negate,
                                                    const std::vector<StateSet>& atoms) {
  if (f.op == Op::negation) return terms_of(f.operands[0], !negate, atoms);
  if (f.op == Op::conjunction || f.op == Op::disjunction) {
    std::optional<std::vector<RecurrenceTerm>> a = terms_of(f.operands[0], negate, atoms);
    std::optional<std::vector<RecurrenceTerm>> b = a ? terms_of(f.operands[1], negate, atoms) : std::nullopt;
    if (!b) return std::nullopt;
    std::vector<RecurrenceTerm> terms;
    if ((f.op == Op::conjunction) == negate) {  // a disjunction
      terms = std::move(*a);
      terms.insert(terms.end(), std::make_move_iterator(b->begin()), std::make_move_iterator(b->end()));
    } else {
      for (const RecurrenceTerm& x : *a) {
        for (const RecurrenceTerm& y : *b) {
          std::optional<RecurrenceTerm> xy = both_terms(x, y);
          if (!xy) return std::nullopt;
          terms.push_back(std::move(*xy));
        }
      }
    }
    if (terms.size() > kMostTerms) return std::nullopt;
    return terms;
  }
  std::optional<Recurrence> leaf = recurrence_of(f, atoms);
  if (!leaf) return std::nullopt;
  return std::vector<RecurrenceTerm>{term_of(negate ? negated(std::move(*leaf)) : std::move(*leaf))};
}

// The states from which a scheduler meets the term almost surely, among them those of
// every end component in which a scheduler that stays meets it.
StateSet term_staying_states(const SparseMdp& mdp, const graph::SearchBackend& search, const RecurrenceTerm& term) {
  if (term.eventually_forever.empty()) {
    return staying_states(mdp, search, Recurrence{Kind::infinitely_often, term.infinitely_often});
  }
  if (term.infinitely_often.empty()) {
    return staying_states(mdp, search, Recurrence{Kind::eventually_forever, term.eventually_forever});
  }
  const StateSet meeting = meeting_candidates(mdp, Recurrence{Kind::infinitely_often, term.infinitely_often});
  StateSet staying(mdp.num_states());
  for (const StateSet& c : term.eventually_forever) {
    staying |= graph::almost_sure_buchi(search, term.infinitely_often, c & meeting);
  }
  return staying;
}

}  // namespace

std::optional<Recurrence> recurrence_of(const PathFormula& formula, const std::vector<StateSet>& atoms) {
  // G F phi or F G phi, phi over atoms.
  const auto leaf = [&](const PathFormula& f) -> std::optional<Recurrence> {
    for (const auto& [outer, inner, kind] : {std::tuple{Op::always, Op::eventually, Kind::infinitely_often},
                                             std::tuple{Op::eventually, Op::always, Kind::eventually_forever}}) {
      const PathFormula* middle = unbounded_operand(f, outer);
      const PathFormula* phi = middle ? unbounded_operand(*middle, inner) : nullptr;
      if (std::optional<StateSet> states = phi ? states_of(*phi, atoms) : std::nullopt) {
        return Recurrence{kind, {std::move(*states)}};
      }
    }
    return std::nullopt;
  };
  return fold_boolean<Recurrence>(formula, leaf, negated, joined);
}

std::optional<PlainUntil> plain_until_of(const PathFormula& formula, const std::vector<StateSet>& atoms) {
  if (formula.bounded() || (formula.op != Op::eventually && formula.op != Op::until && formula.op != Op::always)) {
    return std::nullopt;
  }
  std::optional<StateSet> psi = states_of(formula.operands.back(), atoms);
  if (!psi) return std::nullopt;
  if (formula.op == Op::always) return PlainUntil{all_states(psi->size()), std::move(psi->flip()), true};
  if (formula.op == Op::eventually) return PlainUntil{all_states(psi->size()), std::move(*psi)};
  std::optional<StateSet> phi = states_of(formula.operands[0], atoms);
  if (!phi) return std::nullopt;
  return PlainUntil{std::move(*phi), std::move(*psi)};
}

std::optional<RecurrenceUnion> recurrence_union_of(const PathFormula& formula, const std::vector<StateSet>& atoms,
                                                   Optimization direction, bool chain) {
  const bool of_the_negation = !chain && direction == Optimization::minimize;
  std::optional<std::vector<RecurrenceTerm>> terms = terms_of(formula, of_the_negation, atoms);
  if (!terms) return std::nullopt;
  return RecurrenceUnion{std::move(*terms), of_the_negation};
}

NumericResult compute_recurrence_union_probabilities(const SparseMdp& mdp, const graph::SearchBackend& search,
                                                     const RecurrenceUnion& path, const SolverOptions& options,
                                                     const DeviceOptions& device) {
  const auto start = std::chrono::steady_clock::now();
  StateSet target(mdp.num_states());
  for (const RecurrenceTerm& term : path.terms) target |= term_staying_states(mdp, search, term);
  spdlog::debug("G F and F G in {} terms on the model, no product: {} of {} states meet one almost surely, {:.3f} s",
                path.terms.size(), target.count(), mdp.num_states(), seconds_since(start));
  NumericResult maximum = compute_until_probabilities(mdp, search, Optimization::maximize,
                                                      all_states(mdp.num_states()), target, options, device);
  return path.of_the_negation ? complemented(std::move(maximum)) : maximum;
}

NumericResult compute_recurrence_probabilities(const SparseMdp& mdp, const graph::SearchBackend& search,
                                               Optimization direction, const Recurrence& path,
                                               const SolverOptions& options, const DeviceOptions& device) {
  if (has_one_choice_per_state(mdp.type) || direction == Optimization::maximize) {
    return maximal_probabilities(mdp, search, path, options, device);
  }
  return complemented(maximal_probabilities(mdp, search, negated(path), options, device));
}

}  // namespace mdpvi
