#include "engine/check/filter.h"

#include "engine/model/located_error.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <limits>

namespace mdpvi {

const char* to_string(FilterOp op) {
  switch (op) {
    case FilterOp::forall: return "forall";
    case FilterOp::exists: return "exists";
    case FilterOp::min: return "min";
    case FilterOp::max: return "max";
    case FilterOp::avg: return "avg";
    case FilterOp::sum: return "sum";
    case FilterOp::count: return "count";
    case FilterOp::first: return "first";
    case FilterOp::range: return "range";
    case FilterOp::state: return "state";
    case FilterOp::print: return "print";
    case FilterOp::printall: return "printall";
    case FilterOp::argmin: return "argmin";
    case FilterOp::argmax: return "argmax";
  }
  return "?";
}

namespace {

std::string state_line(const SparseMdp& mdp, std::uint32_t s, const StateValues& values) {
  std::string line = std::to_string(s) + ":";
  if (mdp.valuations) {
    line += "(";
    for (std::size_t i = 0; i < mdp.valuations->variables.size(); ++i) {
      std::int32_t x = mdp.valuations->value(s, i);
      if (i) line += ",";
      line += mdp.valuations->types[i] == ValueType::boolean ? (x ? "true" : "false") : std::to_string(x);
    }
    line += ")";
  }
  line += "=";
  line += values.boolean ? (values.truth.test(s) ? "true" : "false") : format_number(values.numbers[s]);
  return line + "\n";
}

class FilterApplication {
 public:
  FilterApplication(const StateValues& values, const StateSet& states, const SparseMdp& mdp, const std::string& source,
                    SourcePosition at, FilterOp op)
      : values_(values), states_(states), mdp_(mdp), source_(source), at_(at), op_(op) {}

  PropertyValue apply() {
    const std::size_t n = states_.count();
    PropertyValue result;
    result.scope = std::string(to_string(op_)) + " over " + std::to_string(n) + (n == 1 ? " state" : " states");
    switch (op_) {
      case FilterOp::forall: requires_boolean(); return truth(states_.is_subset_of(values_.truth), result);
      case FilterOp::exists: requires_boolean(); return truth(states_.intersects(values_.truth), result);
      case FilterOp::count:
        requires_boolean();
        return number(static_cast<double>((states_ & values_.truth).count()), result);
      case FilterOp::sum: return bounded(number(sum(), result), sum_of(values_.lower_numbers()), sum_of(values_.upper_numbers()));
      case FilterOp::avg: {
        double k = static_cast<double>(requires_states(n));
        return bounded(number(sum() / k, result), sum_of(values_.lower_numbers()) / k, sum_of(values_.upper_numbers()) / k);
      }
      case FilterOp::min:
        return bounded(number(extreme(false), result), extreme_of(values_.lower_numbers(), false), extreme_of(values_.upper_numbers(), false));
      case FilterOp::max:
        return bounded(number(extreme(true), result), extreme_of(values_.lower_numbers(), true), extreme_of(values_.upper_numbers(), true));
      case FilterOp::range: {
        result.kind = PropertyValue::Kind::range;
        result.number = extreme(false);
        result.upper = extreme(true);
        return result;
      }
      case FilterOp::argmin:
      case FilterOp::argmax: {
        double best = extreme(op_ == FilterOp::argmax);
        for (auto s = states_.find_first(); s != StateSet::npos; s = states_.find_next(s)) {
          if (values_.numbers[s] == best) result.listing += state_line(mdp_, static_cast<std::uint32_t>(s), values_);
        }
        return number(best, result);
      }
      case FilterOp::first:
      case FilterOp::state: {
        if (op_ == FilterOp::state && n != 1) fail("filter state needs exactly one state, found " + std::to_string(n));
        requires_states(n);
        return at_state(static_cast<std::uint32_t>(states_.find_first()), result);
      }
      case FilterOp::print:
      case FilterOp::printall: break;
    }
    // print lists the states' non-zero (true) values, printall all of them; the
    // result is the value in the initial state(s), as without a filter.
    for (auto s = states_.find_first(); s != StateSet::npos; s = states_.find_next(s)) {
      if (op_ == FilterOp::print && values_.number(static_cast<std::uint32_t>(s)) == 0.0) continue;
      result.listing += state_line(mdp_, static_cast<std::uint32_t>(s), values_);
    }
    PropertyValue initial = apply_default_filter(values_, mdp_, source_, at_);
    initial.listing = std::move(result.listing);
    return initial;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw LocatedError(source_, at_.line, at_.column, message);
  }
  void requires_boolean() const {
    if (!values_.boolean) fail(std::string("filter ") + to_string(op_) + " needs a Boolean property, found a number");
  }
  std::size_t requires_states(std::size_t n) const {
    if (n == 0) fail(std::string("filter ") + to_string(op_) + ": no state satisfies the filter's states");
    return n;
  }
  const StateNumbers& requires_numbers() const {
    if (values_.boolean) fail(std::string("filter ") + to_string(op_) + " needs a numeric property, found a Boolean");
    return values_.numbers;
  }
  double sum() const {
    const StateNumbers& v = requires_numbers();
    double total = 0.0;
    for (auto s = states_.find_first(); s != StateSet::npos; s = states_.find_next(s)) total += v[s];
    return total;
  }
  double extreme(bool largest) const {
    const StateNumbers& v = requires_numbers();
    requires_states(states_.count());
    double best = largest ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    for (auto s = states_.find_first(); s != StateSet::npos; s = states_.find_next(s)) {
      best = largest ? std::max(best, v[s]) : std::min(best, v[s]);
    }
    return best;
  }
  PropertyValue at_state(std::uint32_t s, PropertyValue& result) const {
    if (values_.boolean) return truth(values_.truth.test(s), result);
    if (values_.has_bounds()) return bounded(number(values_.numbers[s], result), values_.lower_numbers()[s], values_.upper_numbers()[s]);
    return number(values_.numbers[s], result);
  }
  // Sums and extremes of bounds bound the sums and extremes of the truths.
  double sum_of(const StateNumbers& v) const {
    double total = 0.0;
    if (v.empty()) return total;
    for (auto s = states_.find_first(); s != StateSet::npos; s = states_.find_next(s)) total += v[s];
    return total;
  }
  double extreme_of(const StateNumbers& v, bool largest) const {
    double best = largest ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    if (v.empty()) return best;
    for (auto s = states_.find_first(); s != StateSet::npos; s = states_.find_next(s)) {
      best = largest ? std::max(best, v[s]) : std::min(best, v[s]);
    }
    return best;
  }
  PropertyValue bounded(PropertyValue value, double lower, double upper) const {
    if (values_.has_bounds()) {
      value.lower_bound = lower;
      value.upper_bound = upper;
    }
    return value;
  }
  static PropertyValue truth(bool t, PropertyValue& result) {
    result.kind = PropertyValue::Kind::boolean;
    result.truth = t;
    return result;
  }
  static PropertyValue number(double x, PropertyValue& result) {
    result.kind = PropertyValue::Kind::number;
    result.number = x;
    return result;
  }

  const StateValues& values_;
  const StateSet& states_;
  const SparseMdp& mdp_;
  const std::string& source_;
  SourcePosition at_;
  FilterOp op_;
};

}  // namespace

PropertyValue apply_filter(FilterOp op, const StateValues& values, const StateSet& states, const SparseMdp& mdp,
                           const std::string& source, SourcePosition at) {
  return FilterApplication(values, states, mdp, source, at, op).apply();
}

PropertyValue apply_default_filter(const StateValues& values, const SparseMdp& mdp, const std::string& source,
                                   SourcePosition at) {
  StateSet initial(mdp.num_states());
  for (std::uint32_t s : mdp.initial_states) initial.set(s);
  const std::size_t n = initial.count();
  FilterOp op = values.boolean ? FilterOp::forall : n == 1 ? FilterOp::state : FilterOp::range;
  PropertyValue result = apply_filter(op, values, initial, mdp, source, at);
  if (n == 1) {
    result.scope = values.boolean ? "in the initial state" : "value in the initial state";
  } else {
    result.scope = std::string(values.boolean ? "in all " : "range over the ") + std::to_string(n) + " initial states";
  }
  return result;
}

}  // namespace mdpvi
