#pragma once
// The types of PRISM's values, shared by the language (io/), the valuations of built
// models and the checker: a small header so that the model does not pull in the syntax.
namespace mdpvi {

enum class ValueType { boolean, integer, real };

const char* to_string(ValueType type);

}  // namespace mdpvi
