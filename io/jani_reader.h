#pragma once
// JANI models (the Quantitative Verification Benchmark Set's format, jani-spec.org),
// read into the PRISM language's description, which the builder then builds as any
// PRISM model: the PRISM-expressible part of JANI, which is what PRISM's and Storm's
// exports hold.
//  - Automata are modules; a location beyond the first is a variable of its module.
//  - Sync vectors must be PRISM's synchronisation: every entry of a vector the same
//    action as its result. An edge whose automaton no vector syncs on its action
//    never fires (JANI's rule), so it is left out.
//  - Transient Boolean variables are labels; transient numeric ones are reward
//    structures, named after them: location values are state rewards, values
//    assigned on an edge's destinations are its transition reward (weighted by the
//    destinations' probabilities, which gives the same expectations).
//  - Functions are inlined; a CTMC edge's rate multiplies its destinations'
//    probabilities, as a PRISM command's rates.
// The file's properties come back as PRISM properties text, each named as in the
// file.
#include "io/parse_error.h"
#include "io/prism_model.h"
#include "io/text_cursor.h"

#include <string>
#include <vector>

namespace mdpvi::io {

// A property of the file, as PRISM text ("P>=1 [ F \"finished\" ]"), or the reason
// it has none (a "not supported yet" error: the file's other properties still run).
struct JaniProperty {
  std::string name;
  std::string text;
  std::string error;
};

struct JaniFile {
  ModelDescription model;
  std::vector<JaniProperty> properties;
};

// Throws ParseError: "file:line:column: ..." for JSON syntax, "file: path.in.file:
// expected X, found Y" for a model mdpvi cannot read, and UnsupportedError for JANI
// that has no PRISM form (renaming sync vectors, unbounded or real variables, ...).
JaniFile read_jani(const TextFile& file);

// Whether a path names a JANI file (by its extension).
bool is_jani_path(const std::string& path);

}  // namespace mdpvi::io
