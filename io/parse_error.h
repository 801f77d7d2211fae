#pragma once
#include "engine/model/located_error.h"

namespace mdpvi::io {

// Input errors of the readers: "file:line:column: expected X, found Y".
using ParseError = LocatedError;

// Input that is well formed but asks for what mdpvi does not do yet ("not supported
// yet: LTL ..."): a property with it gets that error; the others still run.
class UnsupportedError : public LocatedError {
 public:
  using LocatedError::LocatedError;
};

}  // namespace mdpvi::io
