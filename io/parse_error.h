#pragma once
#include "engine/model/located_error.h"

namespace mdpvi::io {

// Input errors of the readers: "file:line:column: expected X, found Y".
using ParseError = LocatedError;

}  // namespace mdpvi::io
