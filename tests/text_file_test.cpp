// io::TextFile keeps each line as a view into its text. Issue 26: a text short enough
// for the std::string's own small-string storage moved with the TextFile, and the
// views went on pointing into the object it was moved from.
#include "io/text_cursor.h"

#include <gtest/gtest.h>

#include <optional>

namespace mdpvi::io {
namespace {

bool points_into(const char* p, const void* object, std::size_t size) {
  const char* begin = static_cast<const char*>(object);
  return p >= begin && p < begin + size;
}

TEST(TextFile, LinesOfAShortTextSurviveAMove) {
  TextFile original = TextFile::from_string("short.srew", "ab\ncd");
  ASSERT_EQ(original.num_lines(), 2u);
  // The text must not live inside the TextFile object: a move would leave it behind.
  EXPECT_FALSE(points_into(original.line(0).data(), &original, sizeof original));
  std::optional<TextFile> moved(std::move(original));
  EXPECT_EQ(moved->line(0), "ab");
  EXPECT_EQ(moved->line(1), "cd");
  TextFile copy = *moved;
  moved.reset();
  EXPECT_EQ(copy.line(1), "cd");
}

TEST(TextFile, ADirectoryIsNotReadAsAnEmptyFile) {
  try {
    (void)TextFile::load(".");
    FAIL() << "a directory was read";
  } catch (const ParseError& error) {
    EXPECT_NE(std::string(error.what()).find("is a directory"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace mdpvi::io
