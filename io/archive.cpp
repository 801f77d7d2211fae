#include "io/archive.h"

#include "io/parse_error.h"

#include <archive.h>
#include <archive_entry.h>

#include <stdexcept>

namespace mdpvi::io {

namespace {

// libarchive's word on its last error; it has none for some failures.
std::string error_text(archive* a) {
  const char* text = archive_error_string(a);
  return text ? text : "unknown error";
}

// A reader of tar archives, compressed in any way libarchive knows, not yet opened.
archive* new_tar_reader() {
  archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_tar(a);
  return a;
}

}  // namespace

ArchiveReader::ArchiveReader(const std::string& path) : path_(path), archive_(new_tar_reader(), archive_read_free) {
  check_opened(archive_read_open_filename(archive_.get(), path.c_str(), 1 << 16));
}

ArchiveReader::ArchiveReader(const std::string& name, const void* data, std::size_t size)
    : path_(name), archive_(new_tar_reader(), archive_read_free) {
  check_opened(archive_read_open_memory(archive_.get(), data, size));
}

void ArchiveReader::check_opened(int status) const {
  if (status != ARCHIVE_OK) fail("cannot read it as a (compressed) tar archive: " + error_text(archive_.get()));
}

ArchiveReader::~ArchiveReader() = default;

bool ArchiveReader::next_entry() {
  for (;;) {
    archive_entry* entry = nullptr;
    const int status = archive_read_next_header(archive_.get(), &entry);
    if (status == ARCHIVE_EOF) return false;
    if (status != ARCHIVE_OK) fail("broken archive: " + error_text(archive_.get()));
    if (archive_entry_filetype(entry) != AE_IFREG) continue;  // folders
    name_ = archive_entry_pathname(entry);
    if (name_.starts_with("./")) name_.erase(0, 2);
    size_ = archive_entry_size_is_set(entry) ? static_cast<std::uint64_t>(archive_entry_size(entry)) : 0;
    return true;
  }
}

void ArchiveReader::read(void* into, std::size_t bytes) {
  auto* out = static_cast<char*>(into);
  while (bytes > 0) {
    const la_ssize_t got = archive_read_data(archive_.get(), out, bytes);
    if (got < 0) fail(name_ + ": broken archive: " + error_text(archive_.get()));
    if (got == 0) fail(name_ + ": the archive ends inside this entry (truncated?)");
    out += got;
    bytes -= static_cast<std::size_t>(got);
  }
}

void ArchiveReader::fail(const std::string& message) const { throw ParseError(path_, 0, 0, message); }

ArchiveWriter::ArchiveWriter(const std::string& path, Compression compression)
    : path_(path), archive_(archive_write_new(), archive_write_free) {
  // Fast levels: the arrays of a model compress about as well at level 1, and the
  // default levels take many times longer on a large model.
  if (compression == Compression::gzip) {
    archive_write_add_filter_gzip(archive_.get());
    archive_write_set_filter_option(archive_.get(), "gzip", "compression-level", "1");
  }
  if (compression == Compression::xz) {
    archive_write_add_filter_xz(archive_.get());
    archive_write_set_filter_option(archive_.get(), "xz", "compression-level", "1");
    archive_write_set_filter_option(archive_.get(), "xz", "threads", "0");  // all cores
  }
  archive_write_set_format_pax_restricted(archive_.get());
  if (archive_write_open_filename(archive_.get(), path.c_str()) != ARCHIVE_OK) fail("open");
}

ArchiveWriter::~ArchiveWriter() = default;

void ArchiveWriter::begin(const std::string& name, std::uint64_t bytes) {
  entry_ = name;
  archive_entry* entry = archive_entry_new();
  archive_entry_set_pathname(entry, name.c_str());
  archive_entry_set_size(entry, static_cast<la_int64_t>(bytes));
  archive_entry_set_filetype(entry, AE_IFREG);
  archive_entry_set_perm(entry, 0644);
  const int status = archive_write_header(archive_.get(), entry);
  archive_entry_free(entry);
  if (status != ARCHIVE_OK) fail("write " + name);
}

void ArchiveWriter::write(const void* data, std::size_t bytes) {
  const char* from = static_cast<const char*>(data);
  while (bytes > 0) {
    const la_ssize_t put = archive_write_data(archive_.get(), from, bytes);
    if (put <= 0) fail("write " + entry_);
    from += put;
    bytes -= static_cast<std::size_t>(put);
  }
}

void ArchiveWriter::close() {
  if (archive_write_close(archive_.get()) != ARCHIVE_OK) fail("close");
}

void ArchiveWriter::fail(const std::string& what) const {
  throw std::runtime_error(path_ + ": cannot " + what + ": " + error_text(archive_.get()));
}

}  // namespace mdpvi::io
