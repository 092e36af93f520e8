#include "plans/json_file.hpp"

#include <algorithm>
#include <cstring>

#include "core/i18n.hpp"

namespace cudalab {

Result<nlohmann::json> readVersionedJson(const std::string& text, const char* format, int version) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    return Status::error(trf("it is not JSON (%s).", e.what()));
  }
  if (!j.is_object()) return Status::error(trf("it holds %s, not an object.", j.type_name()));
  if (j.value("format", std::string()) != format)
    return Status::error(trf("its \"format\" is not \"%s\".", format));
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<long long>() < 1)
    return Status::error(tr("its \"version\" is missing or not a whole number from 1."));
  if (j["version"].get<long long>() > version)
    return Status::error(trf("it is version %lld, from a newer cudalab; this one reads version %d.",
                             j["version"].get<long long>(), version));
  return j;
}

void warnUnknownFields(const nlohmann::json& j, std::initializer_list<const char*> known,
                       const std::string& where, const std::string& reader,
                       std::vector<std::string>& warnings) {
  for (const auto& [key, v] : j.items())
    if (std::none_of(known.begin(), known.end(),
                     [&](const char* k) { return std::strcmp(k, key.c_str()) == 0; }))
      warnings.push_back(trf("%s: the field \"%s\" means nothing to %s, so it is ignored.",
                             where.c_str(), key.c_str(), reader.c_str()));
}

}  // namespace cudalab
