#include "common/phrase_json.hpp"

#include <string>
#include <vector>

namespace cudalab {

nlohmann::json toJson(const Phrase& p) {
  return {{"format", p.format}, {"values", p.values}};
}

Phrase phraseFromJson(const nlohmann::json& j) {
  return {j.at("format").get<std::string>(), j.at("values").get<std::vector<std::string>>()};
}

}  // namespace cudalab
