#pragma once
// The properties the checker answers, as trees built by io/'s property parser.
//
// A property is a Formula. Every formula has a value in every state (a truth value
// or a number); what is reported is the filter's single value, or without a filter
// PRISM's default: the value in the initial state (all of them must hold for a
// Boolean property; several initial states give a numeric property a range).
#include "engine/model/optimization.h"
#include "engine/model/path_formula.h"
#include "io/expression.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mdpvi {

enum class Comparison { less, less_equal, greater, greater_equal };

// The probabilistic and reward operators, P[...] and R[...], and CTL's path
// quantifiers, E[...] (some path) and A[...] (every path), over the same paths.
struct TemporalOperator {
  enum class Kind { probability, reward, exists, forall, steady_state };
  // What is inside the brackets. Formula::operands holds the state formulas:
  //   until [left U right] and [F right] (left = true), with an optional step bound;
  //   next [X operand]; reachability reward [F target] and [phi U target] (operands:
  //   target, then phi where written); cumulative reward [C<=k];
  //   total reward [C]; instantaneous reward [I=k]; long-run average reward [S].
  //   S[phi] (Kind::steady_state) has phi as its one operand.
  //   E/A only: eventually_always [F G operand] and always_eventually [G F operand];
  //   A is read as the complement of E over the negated operand.
  //   ltl: any other path of P, E or A (nested temporal operators, Boolean
  //   combinations of paths): the tree in ltl, over the state formulas in operands.
  enum class Path { until, next, reachability_reward, cumulative_reward, total_reward, instantaneous_reward,
                    long_run_reward, eventually_always, always_eventually, ltl };

  Kind kind = Kind::probability;
  Path path = Path::until;
  std::optional<Optimization> direction;  // Pmin/Pmax/Rmin/Rmax; else from the bound or none
  std::optional<Comparison> comparison;   // P>=p: a Boolean; none: a query (=?)
  // PRISM's strategy operators over an MDP (one player): <<C>> with C not empty, and [[]],
  // ask whether some scheduler meets the bound; <<>> and [[C]], as a bare bound, whether
  // every scheduler does. (*, a player's name or number: the one player.)
  bool some_scheduler = false;
  Expression threshold;                   // p, when comparison is set
  std::optional<Expression> step_bound;   // U<=k, F<=k, C<=k, I=k (U<k is stored as <=k-1)
  std::optional<Expression> lower_step_bound;  // U>=k (U>k as >=k+1); U[a,b] and U=k set both
  // A bound written < or > (stored shifted by 1 for steps): a CTMC's time bound is the
  // written one, the shifted expression's first operand (U<t is U<=t in continuous time).
  bool step_bound_shifted = false, lower_step_bound_shifted = false;
  // G, W and R are read as complements (io/property_parser.cpp): the operator's value
  // is 1 minus that of the until below it, optimised the opposite way (E and A swap). G phi is
  // !(F !phi); phi W psi is !((!psi) U (!phi & !psi)); phi R psi is !((!phi) U (!psi)).
  bool complement = false;
  // R[C{discount=d}], R[C{discount=d}<=k] and R[F{discount=d} phi]: each step's reward
  // counts d^i at step i (PRISM's discounted rewards); none: undiscounted.
  std::optional<Expression> discount;
  std::optional<std::string> reward_name;   // R{"name"}
  std::optional<Expression> reward_index;   // R{2}: 1-based; neither: the first structure
  std::shared_ptr<const PathFormula> ltl;   // Path::ltl
  std::vector<Expression> ltl_bounds;       // Path::ltl: the step bounds its nodes number
};

enum class FilterOp { forall, exists, min, max, avg, sum, count, first, range, state, print, printall, argmin, argmax };

const char* to_string(FilterOp op);

struct Formula {
  enum class Kind {
    state,     // an expression over labels, variables, constants and formulas, whose
               // Expression::Kind::nested atoms are the Boolean operators in operands
    temporal,  // P or R; operands as TemporalOperator::Path says
    filter,    // operands: the property, then the states
    multi      // multi(...): operands are its objectives, each a P or R operator
  };
  Kind kind = Kind::state;
  Expression expression;          // Kind::state
  TemporalOperator temporal;      // Kind::temporal
  FilterOp filter = FilterOp::forall;  // Kind::filter
  std::vector<Formula> operands;
  SourcePosition position;

  static Formula state_formula(Expression e) {
    Formula f;
    f.position = e.position;
    f.expression = std::move(e);
    return f;
  }
};

}  // namespace mdpvi
