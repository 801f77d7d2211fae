#include "engine/automata/hoa_path_automaton.h"

#include "engine/automata/ltl_automaton.h"

#include <stdexcept>
#include <string>

namespace mdpvi::automata {

namespace {

using Node = HoaAutomaton::Node;
using Term = HoaPathAutomaton::Term;
using Terms = std::vector<Term>;

Terms either(Terms a, const Terms& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Terms both(const Terms& a, const Terms& b) {
  Terms out;
  for (const Term& x : a) {
    for (const Term& y : b) {
      Term t = x;
      t.fin.insert(t.fin.end(), y.fin.begin(), y.fin.end());
      t.inf.insert(t.inf.end(), y.inf.begin(), y.inf.end());
      out.push_back(std::move(t));
      if (out.size() > HoaPathAutomaton::kMostTerms) {
        throw AutomatonTooLarge("the HOA automaton's acceptance condition has more than " +
                                std::to_string(HoaPathAutomaton::kMostTerms) + " terms in disjunctive normal form");
      }
    }
  }
  return out;
}

// The formula below node (negated where asked) in disjunctive normal form: no term is
// false, one empty term is true.
Terms normal_form(const std::vector<Node>& nodes, std::uint32_t node, bool negated) {
  const Node& n = nodes[node];
  switch (n.op) {
    case Node::Op::truth: return negated ? Terms{} : Terms{Term{}};
    case Node::Op::falsity: return negated ? Terms{Term{}} : Terms{};
    case Node::Op::fin:
    case Node::Op::inf: {
      Term t;
      const bool fin = (n.op == Node::Op::fin) != negated;  // !Fin(s) = Inf(s)
      (fin ? t.fin : t.inf).push_back({n.index, n.complemented_set});
      return {t};
    }
    case Node::Op::negation: return normal_form(nodes, n.left, !negated);
    case Node::Op::conjunction:
    case Node::Op::disjunction: {
      const Terms a = normal_form(nodes, n.left, negated), b = normal_form(nodes, n.right, negated);
      return (n.op == Node::Op::conjunction) != negated ? both(a, b) : either(a, b);
    }
    case Node::Op::proposition: break;
  }
  throw std::logic_error("a proposition in an acceptance formula");
}

}  // namespace

std::vector<Term> HoaPathAutomaton::terms_of(const HoaAutomaton& automaton, bool complemented) {
  Terms terms = normal_form(automaton.acceptance_nodes, automaton.acceptance, complemented);
  if (complemented) {  // a run that found no edge: rejected by the automaton, so accepted here
    Term sink;
    sink.inf.push_back({kSinkSet, false});
    terms.push_back(sink);
  }
  for (const Term& t : terms) {
    if (t.inf.size() > 32) throw AutomatonTooLarge("a term of the HOA automaton's acceptance asks more than 32 Inf sets");
  }
  return terms;
}

HoaPathAutomaton::StateData HoaPathAutomaton::state_data(std::uint32_t hoa_state, std::uint32_t term, std::uint32_t marks) {
  StateData data;
  data.hoa_state = hoa_state;
  data.term = term;
  data.marks = marks;
  return data;
}

HoaPathAutomaton::HoaPathAutomaton(std::shared_ptr<const HoaAutomaton> automaton,
                                   std::vector<std::uint32_t> propositions, bool complemented)
    : a_(std::move(automaton)),
      propositions_(std::move(propositions)),
      complemented_(complemented),
      terms_(terms_of(*a_, complemented)) {
  states_.emplace_back();  // kRejecting
  states_[kRejecting].jumps_made = true;
  const std::uint32_t hoa_states = a_->num_states() + (complemented ? 1 : 0);
  for (std::uint32_t h = 0; h < hoa_states; ++h) states_.push_back(state_data(h, kNoTerm, 0));
  initial_ = 1 + a_->start;
}

bool HoaPathAutomaton::holds(std::uint32_t label, std::uint64_t hoa_letter) const {
  const Node& n = a_->labels[label];
  switch (n.op) {
    case Node::Op::truth: return true;
    case Node::Op::falsity: return false;
    case Node::Op::proposition: return (hoa_letter >> n.index) & 1;
    case Node::Op::negation: return !holds(n.left, hoa_letter);
    case Node::Op::conjunction: return holds(n.left, hoa_letter) && holds(n.right, hoa_letter);
    case Node::Op::disjunction: return holds(n.left, hoa_letter) || holds(n.right, hoa_letter);
    default: throw std::logic_error("an acceptance condition in a label");
  }
}

HoaPathAutomaton::Move HoaPathAutomaton::move(std::uint32_t hoa_state, std::uint64_t letter) const {
  const Move into_sink{true, a_->num_states(), 0, true};
  if (hoa_state == into_sink.target) return into_sink;
  std::uint64_t hoa_letter = 0;
  for (std::size_t k = 0; k < propositions_.size(); ++k) hoa_letter |= ((letter >> propositions_[k]) & 1) << k;
  Move found;
  for (const HoaAutomaton::Edge& e : a_->edges[hoa_state]) {
    if (!holds(e.label, hoa_letter)) continue;
    if (found.taken) {
      throw std::runtime_error(a_->source + ": the automaton is not deterministic: state " + std::to_string(hoa_state) +
                               " has edges to " + std::to_string(found.target) + " and " + std::to_string(e.target) +
                               " for one letter of the model");
    }
    found = {true, e.target, e.sets | a_->state_sets[e.target], false};
  }
  if (!found.taken && complemented_) return into_sink;
  return found;
}

HoaPathAutomaton::State HoaPathAutomaton::step(State q, std::uint64_t letter) {
  if (q == kRejecting) return kRejecting;
  const Move m = move(states_[q].hoa_state, letter);
  if (!m.taken) return kRejecting;
  const std::uint32_t term = states_[q].term;
  if (term == kNoTerm) return 1 + m.target;
  std::uint32_t marks = 0;
  const Term& t = terms_[term];
  // The complement's sink meets its own condition only.
  const auto met = [&](const Condition& c) { return c.set == kSinkSet ? m.into_sink : !m.into_sink && c.met_by(m.sets); };
  for (const Condition& c : t.fin) {
    if (met(c)) return kRejecting;
  }
  for (std::size_t k = 0; k < t.inf.size(); ++k) {
    if (met(t.inf[k])) marks |= 1u << k;
  }
  return copy_state(term, m.target, marks);
}

HoaPathAutomaton::State HoaPathAutomaton::copy_state(std::uint32_t term, std::uint32_t hoa_state, std::uint32_t marks) {
  const auto [it, added] = copies_.try_emplace({term, hoa_state, marks}, static_cast<State>(states_.size()));
  if (added) states_.push_back(state_data(hoa_state, term, marks));
  return it->second;
}

const std::vector<HoaPathAutomaton::State>& HoaPathAutomaton::jumps(State q) {
  if (!states_[q].jumps_made) {
    std::vector<State> targets;
    if (states_[q].term == kNoTerm) {
      for (std::uint32_t term = 0; term < terms_.size(); ++term) targets.push_back(copy_state(term, states_[q].hoa_state, 0));
    }
    states_[q].jumps = std::move(targets);  // states_ may have grown: index again
    states_[q].jumps_made = true;
  }
  return states_[q].jumps;
}

std::uint32_t HoaPathAutomaton::all_marks(State q) const {
  if (states_[q].term == kNoTerm) return 0;
  const std::size_t count = terms_[states_[q].term].inf.size();
  return count == 32 ? 0xFFFFFFFFu : (1u << count) - 1;
}

}  // namespace mdpvi::automata
