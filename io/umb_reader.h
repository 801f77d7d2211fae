#pragma once
// UMB, the unified Markov binary format that PRISM 4.10 writes and Storm reads: a tar
// archive (gzip- or xz-compressed, or plain) of index.json, which gives the counts,
// the annotations and the layout of the valuations, and little-endian binary arrays:
// state-to-choices.bin and choice-to-branches.bin (uint64 offsets), branch-to-target.bin
// (uint64), branch-to-probability.bin (double), state-is-initial.bin (a bit set in
// 64-bit words), actions (uint32 indices into a string table), atomic propositions
// (bit sets), rewards on states, choices or branches (double) and bit-packed state
// valuations. MDPs (one player) and DTMCs (none, and no state-to-choices.bin) in
// discrete time with double probabilities; anything else is refused by name.
// Validation is as strict as the .tra reader's, and a corrupt or truncated archive is
// a ParseError naming the archive and its entry, never a crash.
#include "engine/model/sparse_mdp.h"

#include <string>

namespace mdpvi::io {

// The initial states are also the label "init" (first, as in PRISM's .lab); a reward
// on branches becomes its choice's expected reward, as a .trew does.
SparseMdp read_umb_model(const std::string& path);
// The same from an archive in memory; name is for errors.
SparseMdp read_umb_bytes(const std::string& name, const void* data, std::size_t size);

}  // namespace mdpvi::io
