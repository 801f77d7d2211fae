#include "io/model_files.h"

#include "io/drn_reader.h"
#include "io/drn_writer.h"
#include "io/explicit_reader.h"
#include "io/explicit_writer.h"
#include "io/umb_reader.h"
#include "io/umb_writer.h"

#include <fstream>
#include <stdexcept>

namespace mdpvi::io {

namespace {

std::string without_suffix(const std::string& path, std::string_view suffix) {
  return path.ends_with(suffix) ? path.substr(0, path.size() - suffix.size()) : path;
}

}  // namespace

const char* to_string(ModelFormat format) {
  switch (format) {
    case ModelFormat::prism: return "prism";
    case ModelFormat::jani: return "jani";
    case ModelFormat::drn: return "drn";
    case ModelFormat::umb: return "umb";
    case ModelFormat::explicit_files: return "explicit";
  }
  return "?";
}

ModelFormat model_format(const std::string& path, const std::optional<std::string>& forced, bool explicit_base) {
  if (forced) {
    for (ModelFormat f : {ModelFormat::prism, ModelFormat::jani, ModelFormat::drn, ModelFormat::umb, ModelFormat::explicit_files}) {
      if (*forced == to_string(f)) return f;
    }
    throw std::invalid_argument("--format " + *forced + ": expected prism, jani, drn, umb or explicit");
  }
  if (path.ends_with(".jani")) return ModelFormat::jani;
  if (path.ends_with(".drn")) return ModelFormat::drn;
  if (path.ends_with(".umb")) return ModelFormat::umb;
  return explicit_base || path.ends_with(".tra") ? ModelFormat::explicit_files : ModelFormat::prism;
}

SparseMdp read_model_file(ModelFormat format, const std::string& path, bool ctmc) {
  if (ctmc && format != ModelFormat::explicit_files) {
    throw std::invalid_argument(std::string("--ctmc is for PRISM's explicit files (.tra), whose type they do not say; ") +
                                path + " is " + to_string(format));
  }
  switch (format) {
    case ModelFormat::drn: return read_drn_model(path);
    case ModelFormat::umb: return read_umb_model(path);
    case ModelFormat::explicit_files: return read_explicit_model(without_suffix(path, ".tra"), ctmc);
    case ModelFormat::prism:
    case ModelFormat::jani: break;
  }
  throw std::logic_error("read_model_file: a PRISM-language or JANI model is built, not read");
}

void check_model_file_path(const std::string& path) {
  if (!path.ends_with(".tra") && !path.ends_with(".umb") && !path.ends_with(".drn")) {
    throw std::invalid_argument(path + ": the model's format comes from the extension: .tra (PRISM's explicit files), .drn or .umb");
  }
}

Compression compression_named(const std::string& name) {
  if (name == "gzip") return Compression::gzip;
  if (name == "xz") return Compression::xz;
  if (name == "none") return Compression::none;
  throw std::invalid_argument("--umb-compression " + name + ": expected gzip, xz or none");
}

void write_model_file(const SparseMdp& mdp, const std::string& path, Compression umb_compression) {
  check_model_file_path(path);
  if (path.ends_with(".tra")) {
    write_explicit_files(mdp, without_suffix(path, ".tra"));
  } else if (path.ends_with(".umb")) {
    write_umb(mdp, path, umb_compression);
  } else {
    std::ofstream out(path);
    write_drn(mdp, out);
    out.flush();
    if (!out) throw std::runtime_error(path + ": cannot write the model");
  }
}

}  // namespace mdpvi::io
