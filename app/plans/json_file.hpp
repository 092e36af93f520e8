// What preset and plan files share: a JSON object that says its format and version, read with
// a sentence for what is wrong, and fields a version does not know, warned about.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.hpp"

namespace cudalab {

// `text` as a JSON object of `format`, version 1 to `version`; otherwise why not, as the end of
// a sentence ("it is not JSON (...).", "its \"format\" is not ...", "it is version 7, from a
// newer cudalab; this one reads version 1.").
Result<nlohmann::json> readVersionedJson(const std::string& text, const char* format, int version);

// A warning for each field of `j` not among `known`: "`where`: the field "x" means nothing to
// `reader`, so it is ignored."
void warnUnknownFields(const nlohmann::json& j, std::initializer_list<const char*> known,
                       const std::string& where, const std::string& reader,
                       std::vector<std::string>& warnings);

}  // namespace cudalab
