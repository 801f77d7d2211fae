#include "engine/model/value_type.h"

namespace mdpvi {

const char* to_string(ValueType type) {
  switch (type) {
    case ValueType::boolean: return "bool";
    case ValueType::integer: return "int";
    case ValueType::real: return "double";
  }
  return "?";
}

}  // namespace mdpvi
