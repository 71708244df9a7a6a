#include "json.h"

#include <cstdlib>

namespace xab::test {
namespace {

struct Parser {
  const std::string& s;
  std::size_t i = 0;

  [[noreturn]] void fail(const char* why) {
    throw std::runtime_error(std::string("bad JSON at ") + std::to_string(i) + ": " + why);
  }
  void ws() { while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i; }
  char peek() { ws(); if (i >= s.size()) fail("end"); return s[i]; }
  void expect(char c) { if (peek() != c) fail("unexpected character"); ++i; }
  bool word(const char* w) {
    std::string x(w);
    if (s.compare(i, x.size(), x) != 0) return false;
    i += x.size();
    return true;
  }

  std::string string() {
    expect('"');
    std::string out;
    while (i < s.size() && s[i] != '"') {
      char c = s[i++];
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') { out += c; continue; }
      if (i >= s.size()) fail("end in escape");
      char e = s[i++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (i + 4 > s.size()) fail("short \\u");
          out += static_cast<char>(std::strtol(s.substr(i, 4).c_str(), nullptr, 16));
          i += 4;
          break;
        }
        case '"': case '\\': case '/': out += e; break;
        default: fail("bad escape");
      }
    }
    if (i >= s.size()) fail("unterminated string");
    ++i;
    return out;
  }

  Json value() {
    char c = peek();
    Json j;
    if (c == '{') {
      ++i;
      auto o = std::make_shared<Json::Object>();
      if (peek() == '}') { ++i; j.v = o; return j; }
      while (true) {
        std::string k = string();
        expect(':');
        (*o)[k] = value();
        if (peek() == ',') { ++i; continue; }
        expect('}');
        break;
      }
      j.v = o;
    } else if (c == '[') {
      ++i;
      auto a = std::make_shared<Json::Array>();
      if (peek() == ']') { ++i; j.v = a; return j; }
      while (true) {
        a->push_back(value());
        if (peek() == ',') { ++i; continue; }
        expect(']');
        break;
      }
      j.v = a;
    } else if (c == '"') {
      j.v = string();
    } else if (word("true")) {
      j.v = true;
    } else if (word("false")) {
      j.v = false;
    } else if (word("null")) {
      j.v = nullptr;
    } else {
      const char* start = s.c_str() + i;
      char* end = nullptr;
      double d = std::strtod(start, &end);
      if (end == start) fail("not a value");
      i += static_cast<std::size_t>(end - start);
      j.v = d;
    }
    return j;
  }
};

}  // namespace

Json parseJson(const std::string& text) {
  Parser p{text};
  Json j = p.value();
  p.ws();
  if (p.i != text.size()) p.fail("trailing text");
  return j;
}

}  // namespace xab::test
