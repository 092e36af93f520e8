#version 330 core
// Colours a scalar field (float per element) with the viridis colormap between lo and hi.
in vec2 uv;
out vec4 colour;
uniform sampler2D field;
uniform float lo;
uniform float hi;

// Viridis through nine of its stops (matplotlib's colormap, released CC0), linearly
// interpolated: perceptually ordered and readable by colour-blind viewers.
const vec3 stops[9] = vec3[9](
    vec3(0.267, 0.005, 0.329), vec3(0.278, 0.173, 0.478), vec3(0.231, 0.318, 0.545),
    vec3(0.173, 0.443, 0.557), vec3(0.129, 0.565, 0.553), vec3(0.153, 0.678, 0.506),
    vec3(0.361, 0.784, 0.388), vec3(0.667, 0.863, 0.196), vec3(0.992, 0.906, 0.145));

vec3 viridis(float t) {
  float x = clamp(t, 0.0, 1.0) * 8.0;
  int i = min(int(x), 7);
  return mix(stops[i], stops[i + 1], x - float(i));
}

void main() {
  float v = texture(field, uv).r;
  if (isnan(v)) { colour = vec4(0.9, 0.0, 0.6, 1.0); return; }
  float t = clamp((v - lo) / max(hi - lo, 1e-30), 0.0, 1.0);
  colour = vec4(viridis(t), 1.0);
}
