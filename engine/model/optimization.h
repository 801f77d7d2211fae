#pragma once
// Which scheduler a numerical query asks for: the one minimising or maximising.
namespace mdpvi {

enum class Optimization { minimize, maximize };

}  // namespace mdpvi
