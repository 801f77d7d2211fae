#include "engine/automata/bdd.h"

#include <algorithm>

namespace mdpvi::automata {

Bdd::Bdd() {
  nodes_.push_back({UINT32_MAX, kFalse, kFalse});  // the constants: their fields are unused
  nodes_.push_back({UINT32_MAX, kTrue, kTrue});
}

BddRef Bdd::make(std::uint32_t variable, BddRef low, BddRef high) {
  if (low == high) return low;
  const Triple key{variable, (static_cast<std::uint64_t>(low) << 32) | high};
  auto [it, added] = unique_.try_emplace(key, static_cast<BddRef>(nodes_.size()));
  if (added) nodes_.push_back({variable, low, high});
  return it->second;
}

BddRef Bdd::variable(std::uint32_t v) { return make(v, kFalse, kTrue); }

BddRef Bdd::cofactor(BddRef f, std::uint32_t variable, bool value) const {
  if (level(f) != variable) return f;
  return value ? nodes_[f].high : nodes_[f].low;
}

BddRef Bdd::ite(BddRef f, BddRef g, BddRef h) {
  if (f == kTrue) return g;
  if (f == kFalse) return h;
  if (g == h) return g;
  if (g == kTrue && h == kFalse) return f;
  const Triple key{f, (static_cast<std::uint64_t>(g) << 32) | h};
  if (auto it = ite_cache_.find(key); it != ite_cache_.end()) return it->second;
  const std::uint32_t top = std::min({level(f), level(g), level(h)});
  const BddRef high = ite(cofactor(f, top, true), cofactor(g, top, true), cofactor(h, top, true));
  const BddRef low = ite(cofactor(f, top, false), cofactor(g, top, false), cofactor(h, top, false));
  const BddRef result = make(top, low, high);
  ite_cache_.emplace(key, result);
  return result;
}

BddRef Bdd::negation(BddRef f) { return ite(f, kFalse, kTrue); }
BddRef Bdd::conjunction(BddRef f, BddRef g) { return ite(f, g, kFalse); }
BddRef Bdd::disjunction(BddRef f, BddRef g) { return ite(f, kTrue, g); }

BddRef Bdd::compose(BddRef f, const std::function<BddRef(std::uint32_t)>& substitute) {
  std::unordered_map<BddRef, BddRef> done;
  std::unordered_map<std::uint32_t, BddRef> substitutes;
  std::function<BddRef(BddRef)> walk = [&](BddRef g) -> BddRef {
    if (is_constant(g)) return g;
    if (auto it = done.find(g); it != done.end()) return it->second;
    const std::uint32_t v = nodes_[g].variable;
    auto sub = substitutes.find(v);
    if (sub == substitutes.end()) sub = substitutes.emplace(v, substitute(v)).first;
    const BddRef high = walk(nodes_[g].high);
    const BddRef low = walk(nodes_[g].low);
    const BddRef result = ite(sub->second, high, low);
    done.emplace(g, result);
    return result;
  };
  return walk(f);
}

std::vector<std::uint32_t> Bdd::support(BddRef f) const {
  std::vector<std::uint32_t> variables;
  std::vector<BddRef> stack{f};
  std::vector<bool> seen(nodes_.size(), false);
  while (!stack.empty()) {
    const BddRef g = stack.back();
    stack.pop_back();
    if (is_constant(g) || seen[g]) continue;
    seen[g] = true;
    variables.push_back(nodes_[g].variable);
    stack.push_back(nodes_[g].low);
    stack.push_back(nodes_[g].high);
  }
  std::sort(variables.begin(), variables.end());
  variables.erase(std::unique(variables.begin(), variables.end()), variables.end());
  return variables;
}

}  // namespace mdpvi::automata
