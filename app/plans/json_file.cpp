#include "plans/json_file.hpp"

#include <algorithm>
#include <cstring>

namespace cudalab {

Result<nlohmann::json> readVersionedJson(const std::string& text, const char* format, int version) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    return Status::error(std::string("it is not JSON (") + e.what() + ").");
  }
  if (!j.is_object())
    return Status::error("it holds " + std::string(j.type_name()) + ", not an object.");
  if (j.value("format", std::string()) != format)
    return Status::error(std::string("its \"format\" is not \"") + format + "\".");
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<long long>() < 1)
    return Status::error("its \"version\" is missing or not a whole number from 1.");
  if (j["version"].get<long long>() > version)
    return Status::error("it is version " + std::to_string(j["version"].get<long long>()) +
                         ", from a newer cudalab; this one reads version " +
                         std::to_string(version) + ".");
  return j;
}

void warnUnknownFields(const nlohmann::json& j, std::initializer_list<const char*> known,
                       const std::string& where, const std::string& reader,
                       std::vector<std::string>& warnings) {
  for (const auto& [key, v] : j.items())
    if (std::none_of(known.begin(), known.end(),
                     [&](const char* k) { return std::strcmp(k, key.c_str()) == 0; }))
      warnings.push_back(where + ": the field \"" + key + "\" means nothing to " + reader +
                         ", so it is ignored.");
}

}  // namespace cudalab
