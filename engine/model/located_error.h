#pragma once
// Every input error names where it happened: "file:line:column: message".
#include <cstddef>
#include <stdexcept>
#include <string>

namespace mdpvi {

class LocatedError : public std::runtime_error {
 public:
  LocatedError(std::string file, std::size_t line, std::size_t column, const std::string& message)
      : std::runtime_error(format(file, line, column, message)),
        file_(std::move(file)), line_(line), column_(column), message_(message) {}

  const std::string& file() const { return file_; }
  std::size_t line() const { return line_; }      // 1-based; 0 when the whole file is meant
  std::size_t column() const { return column_; }  // 1-based; 0 when the whole line is meant
  const std::string& message() const { return message_; }

 private:
  static std::string format(const std::string& file, std::size_t line, std::size_t column,
                            const std::string& message) {
    std::string where = file;
    if (line > 0) where.append(":").append(std::to_string(line));
    if (column > 0) where.append(":").append(std::to_string(column));
    return where.append(": ").append(message);
  }

  std::string file_;
  std::size_t line_;
  std::size_t column_;
  std::string message_;
};

// An expression names an identifier that nothing declares: for a property, most often
// a constant the user has yet to give, which the command's message suggests.
class UnknownIdentifierError : public LocatedError {
 public:
  using LocatedError::LocatedError;
};

}  // namespace mdpvi
