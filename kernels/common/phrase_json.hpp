// A Phrase (common/status.hpp) as JSON, {"format": ..., "values": [...]}: how the playground's
// worker and the counters' helper send their sentences across their pipes.
//
//   j["failure"] = toJson(phrase);
//   Phrase p = phraseFromJson(j.at("failure"));   // throws nlohmann::json's exceptions
#pragma once

#include <nlohmann/json.hpp>

#include "common/status.hpp"

namespace cudalab {

nlohmann::json toJson(const Phrase& p);
// Throws nlohmann::json's exceptions; the protocols' readers turn them into a sentence.
Phrase phraseFromJson(const nlohmann::json& j);

}  // namespace cudalab
