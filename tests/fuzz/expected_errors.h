#pragma once
// A fuzz input may be refused, never crash: the errors a reader gives for bad input
// (located errors, a model that breaks the invariants) end the input quietly. Any
// other exception (bad_alloc from a size the input only declared, length_error,
// logic_error) escapes, and libFuzzer reports it as a crash.
#include "engine/model/located_error.h"

#include <stdexcept>

namespace mdpvi::fuzz {

template <typename Read>
int refused_or_read(Read read) {
  try {
    read();
  } catch (const LocatedError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}

}  // namespace mdpvi::fuzz
