#pragma once
// The one place that knows which file formats hold a model, for reading and writing
// alike: the PRISM language (built, not read, by engine/), Storm's DRN, UMB, and
// PRISM's explicit files. A format comes from --format or else the file's extension.
#include "engine/model/sparse_mdp.h"
#include "io/archive.h"

#include <optional>
#include <string>

namespace mdpvi::io {

enum class ModelFormat { prism, jani, drn, umb, explicit_files };

// --format's names: "prism", "jani", "drn", "umb", "explicit".
const char* to_string(ModelFormat format);
// The format named by --format (throws std::invalid_argument for another name), else
// by the extension: .jani, .drn, .umb, .tra (PRISM's explicit files beside it);
// anything else is the PRISM language. explicit_base: the path is a BASE of BASE.tra ...
ModelFormat model_format(const std::string& path, const std::optional<std::string>& forced, bool explicit_base = false);

// A model stored explicitly (every format but prism and jani, which are built): BASE or BASE.tra for PRISM's
// files, which hold a CTMC's rates where ctmc says so (DRN names its type itself).
// Throws ParseError for bad input, std::invalid_argument for ctmc with another format.
SparseMdp read_model_file(ModelFormat format, const std::string& path, bool ctmc = false);

// Writes the model in the format of path's extension: FILE.tra (with FILE.lab, FILE.sta
// and the reward files beside it), FILE.drn or FILE.umb (compressed as asked). Throws
// std::invalid_argument for another extension, std::runtime_error when a file cannot
// be written.
void write_model_file(const SparseMdp& mdp, const std::string& path, Compression umb_compression = Compression::gzip);
// --umb-compression's names: "gzip", "xz", "none"; throws std::invalid_argument.
Compression compression_named(const std::string& name);
// The extension check of write_model_file alone, to refuse a bad path before a build.
void check_model_file_path(const std::string& path);

}  // namespace mdpvi::io
