// A small streaming JSON writer: commas here, escaping by the one JSON
// string writer (xab/model/json_string.h), so the report code reads as a
// list of fields.
#pragma once

#include <xab/model/json_string.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace xab::abstat {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty) : pretty_(pretty) {}

  JsonWriter& beginObject() { open('{'); return *this; }
  JsonWriter& endObject() { close('}'); return *this; }
  JsonWriter& beginArray() { open('['); return *this; }
  JsonWriter& endArray() { close(']'); return *this; }

  JsonWriter& key(std::string_view k) {
    comma();
    string(k);
    out_ += pretty_ ? ": " : ":";
    afterKey_ = true;
    return *this;
  }
  JsonWriter& value(std::string_view s) { comma(); string(s); return *this; }
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b) { comma(); out_ += b ? "true" : "false"; return *this; }
  JsonWriter& value(std::int64_t v) { comma(); out_ += std::to_string(v); return *this; }
  JsonWriter& value(std::uint64_t v) { comma(); out_ += std::to_string(v); return *this; }
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(unsigned v) { return value(static_cast<std::uint64_t>(v)); }
  JsonWriter& value(double v) {
    comma();
    if (!std::isfinite(v)) { out_ += "null"; return *this; }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    out_ += buf;
    return *this;
  }
  JsonWriter& null() { comma(); out_ += "null"; return *this; }

  template <class T>
  JsonWriter& field(std::string_view k, const T& v) { key(k); return value(v); }

  const std::string& str() const { return out_; }

 private:
  void open(char c) {
    comma();
    out_ += c;
    first_.push_back(true);
  }
  void close(char c) {
    bool empty = first_.back();
    first_.pop_back();
    if (!empty) newline();
    out_ += c;
  }
  void comma() {
    if (afterKey_) { afterKey_ = false; return; }
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    newline();
  }
  void newline() {
    if (!pretty_) return;
    out_ += '\n';
    out_.append(first_.size() * 2, ' ');
  }
  struct Append {  // writeJsonString's output: the report's text
    std::string& out;
    void put(std::string_view s) { out += s; }
    void put(char c) { out += c; }
  };
  void string(std::string_view s) {
    Append a{out_};
    writeJsonString(a, s);
  }

  bool pretty_;
  bool afterKey_ = false;
  std::vector<bool> first_;
  std::string out_;
};

}  // namespace xab::abstat
