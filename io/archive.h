#pragma once
// Tar archives through libarchive, compressed or not (gzip, xz, zstd, ...: whatever
// libarchive detects): the container of UMB files. Entries are read in archive order,
// each straight into the caller's memory, so a binary array lands where the model
// keeps it with no copy beyond decompression.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct archive;

namespace mdpvi::io {

class ArchiveReader {
 public:
  // Opens path; throws ParseError (line 0) when it is no archive libarchive can read.
  explicit ArchiveReader(const std::string& path);
  // An archive in memory (which must outlive the reader); name is for errors.
  ArchiveReader(const std::string& name, const void* data, std::size_t size);
  ~ArchiveReader();
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;

  // Advances to the next regular file entry; false at the end of the archive.
  bool next_entry();
  const std::string& entry_name() const { return name_; }
  std::uint64_t entry_size() const { return size_; }  // as the entry's header declares
  // Reads the next bytes of the current entry; throws ParseError when the archive
  // ends or breaks before bytes have come.
  void read(void* into, std::size_t bytes);
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& message) const;
  void check_opened(int status) const;  // of archive_read_open_*

  std::string path_;
  // Freed also when a constructor throws (a unique_ptr member is already built).
  std::unique_ptr<archive, int (*)(archive*)> archive_;
  std::string name_;
  std::uint64_t size_ = 0;
};

enum class Compression { none, gzip, xz };

// Writes a tar archive, compressed or not: entries one after another, each of a size
// known when it starts.
class ArchiveWriter {
 public:
  // Throws std::runtime_error when path cannot be written.
  explicit ArchiveWriter(const std::string& path, Compression compression = Compression::gzip);
  ~ArchiveWriter();
  ArchiveWriter(const ArchiveWriter&) = delete;
  ArchiveWriter& operator=(const ArchiveWriter&) = delete;

  // An entry of the given size whose bytes follow in write() calls.
  void begin(const std::string& name, std::uint64_t bytes);
  void write(const void* data, std::size_t bytes);
  void add(const std::string& name, const void* data, std::size_t bytes) {
    begin(name, bytes);
    write(data, bytes);
  }
  void add(const std::string& name, std::string_view text) { add(name, text.data(), text.size()); }
  // Flushes and closes; throws std::runtime_error when that fails (a full disk).
  void close();

 private:
  [[noreturn]] void fail(const std::string& what) const;

  std::string path_;
  std::unique_ptr<archive, int (*)(archive*)> archive_;
  std::string entry_;  // the entry being written, for errors
};

}  // namespace mdpvi::io
