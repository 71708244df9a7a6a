// Pack/unpack mismatches in words (mismatch_text.h).
#include <xab/model/mismatch_text.h>

#include <xab/traceformat/schema.h>

namespace xab {
namespace {

std::string item(PackItem p) {
  auto n = dataTypeName(p.type);
  std::string t = n.empty() ? "type " + std::to_string(p.type) : std::string(n);
  return t + " x" + std::to_string(p.n);
}

}  // namespace

std::string mismatchText(const PackMismatch& m) {
  switch (m.disagreement) {
    case PackDisagreement::AfterEnd: return "unpacks " + item(m.got) + " after the end of what was packed";
    case PackDisagreement::Differs: return "unpacks " + item(m.got) + " where " + item(m.expected) + " was packed";
    case PackDisagreement::PastEnd: return "unpacks " + item(m.got) + " past the end of what was packed";
    case PackDisagreement::PrecvDiffers:
      return "pvm_precv receives " + item(m.got) + " where " + item(m.expected) + " was sent";
  }
  return {};
}

std::string formatPackItems(const std::vector<PackItem>& items) {
  std::string out;
  for (const PackItem& p : items) {
    if (!out.empty()) out += ", ";
    out += item(p);
  }
  return out.empty() ? "(nothing)" : out;
}

const char* mismatchStatus(const MismatchReport& r) {
  if (r.packFiltered) return r.records == 0 ? "pack records filtered" : "pack records partly filtered";
  return r.records == 0 ? "no pack records" : "checked";
}

}  // namespace xab
