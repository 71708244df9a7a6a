// Value parsers for the trace text: each returns false on malformed input
// and never reads past the view it is given.
#pragma once

#include <xab/model/trace.h>

#include <string>
#include <string_view>
#include <vector>

namespace xab::text {

bool parseTime(std::string_view s, TimeNs& out);       // "1763680000.200100200"
bool parseTid(std::string_view s, Tid& out);           // t40002, any, none, -31
bool parseInt(std::string_view s, std::int32_t& out);  // decimal, any = -1
bool parseDataType(std::string_view s, std::int32_t& out);
bool parseTidList(std::string_view s, std::vector<Tid>& out);  // "t1,t2" or "-"
bool parseLang(std::string_view s, std::int32_t& out);         // c, fortran, or a number
// Undo the %XX escapes; false on a bad escape.
bool unescape(std::string_view s, std::string& out);
bool needsUnescape(std::string_view s);

}  // namespace xab::text
