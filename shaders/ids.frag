#version 330 core
// Colours an integer key per element: who wrote it (block, warp or thread id, categorical
// colours) or how many times it was written (counts). Special keys stand out on purpose:
// never written, written past the end of the array (canary), and padding outside the data.
in vec2 uv;
out vec4 colour;
uniform usampler2D keys;
uniform int mode;       // 0: categorical ids, 1: write counts
uniform float checker;  // checker square size in pixels for "never written"

const uint kUnwritten = 0xFFFFFFFFu;
const uint kCanary = 0xFFFFFFFEu;
const uint kPadding = 0xFFFFFFFDu;

// Okabe-Ito, the colour-blind-safe palette the plots use.
const vec3 palette[8] = vec3[8](
    vec3(0.000, 0.447, 0.698), vec3(0.902, 0.624, 0.000), vec3(0.000, 0.620, 0.451),
    vec3(0.800, 0.475, 0.655), vec3(0.337, 0.706, 0.914), vec3(0.835, 0.369, 0.000),
    vec3(0.941, 0.894, 0.259), vec3(0.470, 0.470, 0.470));

void main() {
  uint k = texture(keys, uv).r;
  if (k == kPadding) { colour = vec4(0.0); return; }
  if (k == kCanary) { colour = vec4(0.85, 0.05, 0.10, 1.0); return; }
  bool unwritten = (mode == 0 && k == kUnwritten) || (mode == 1 && k == 0u);
  if (unwritten) {
    ivec2 c = ivec2(gl_FragCoord.xy / checker);
    float v = ((c.x + c.y) & 1) == 0 ? 0.92 : 0.62;
    colour = vec4(v, v, v, 1.0);
    return;
  }
  if (mode == 1) {
    // Once is right (green); twice or more is a bug the learner should see (orange to red).
    colour = k == 1u ? vec4(palette[2], 1.0)
                     : vec4(mix(palette[1], vec3(0.8, 0.0, 0.1), clamp(float(k - 2u) / 4.0, 0.0, 1.0)), 1.0);
    return;
  }
  // Neighbouring ids get different hues, and every eighth id a different shade, so block
  // boundaries are visible even with thousands of blocks.
  vec3 base = palette[k % 7u];
  float shade = 1.0 - 0.22 * float((k / 7u) % 3u);
  colour = vec4(base * shade, 1.0);
}
