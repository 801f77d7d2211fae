#pragma once
// Which scheduler a numerical query asks for: the one minimising or maximising.
namespace mdpvi {

enum class Optimization { minimize, maximize };

// The other one: a complement's (1 - p) best is the worst of p.
inline Optimization opposite(Optimization o) {
  return o == Optimization::minimize ? Optimization::maximize : Optimization::minimize;
}

}  // namespace mdpvi
