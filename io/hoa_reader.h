#pragma once
// Reads a deterministic ω-automaton in the HOA format (v1), as PRISM's
// P [ HOA: { "file", ... } ] names one (engine/model/hoa_automaton.h has what is kept).
//
// Taken: the headers States, Start, AP, Acceptance (any Fin/Inf formula, Fin(!n) and
// Inf(!n) included) and the informative ones (name, acc-name, tool, properties and
// unknown headers, skipped); explicit labels on edges or states; state-based and
// transition-based acceptance sets. Refused with file:line:column: several Start
// states or a conjunction of targets (not deterministic; several edges taking one
// letter are found where a model's letter meets them), aliases (@name), edges without
// labels (implicit labels), more than 64 propositions or acceptance sets.
#include "engine/model/hoa_automaton.h"
#include "io/text_cursor.h"

namespace mdpvi::io {

// Throws ParseError ("file:line:column: expected X, found Y").
HoaAutomaton read_hoa(const TextFile& file);

}  // namespace mdpvi::io
