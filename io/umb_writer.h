#pragma once
// Writes a model as a UMB archive (gzip-compressed as PRISM writes it, xz, or plain
// for the fastest import) (umb_reader.h reads it back, as do
// PRISM 4.10 and Storm): index.json, the CSR arrays, the initial states, the choices'
// actions, every label but "init" as an atomic proposition, every reward structure
// (on states and on choices) and the state valuations, bit-packed.
#include "engine/model/sparse_mdp.h"
#include "io/archive.h"

#include <string>

namespace mdpvi::io {

// Throws std::runtime_error when path cannot be written.
void write_umb(const SparseMdp& mdp, const std::string& path, Compression compression = Compression::gzip);

}  // namespace mdpvi::io
