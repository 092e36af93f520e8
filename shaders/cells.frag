#version 330 core
// Colours the playground's output picture: one key per cell of output elements, as the check
// found them (kernels/playground: Cell), plus the guard zone kept past the end of the output.
in vec2 uv;
out vec4 colour;
uniform usampler2D keys;
uniform float checker;  // checker square size in pixels for "never written"

const uint kRight = 0u;
const uint kWrong = 1u;
const uint kUnwritten = 2u;
const uint kPastEnd = 3u;
const uint kUnchecked = 4u;
const uint kGuardIntact = 5u;  // the guard zone where no thread wrote: as it should be
const uint kPadding = 6u;      // outside the data: transparent

void main() {
  uint k = texture(keys, uv).r;
  // Okabe-Ito green and orange, the plots' colours; red for writes past the end.
  if (k == kRight) { colour = vec4(0.000, 0.620, 0.451, 1.0); return; }
  if (k == kWrong) { colour = vec4(0.902, 0.624, 0.000, 1.0); return; }
  if (k == kPastEnd) { colour = vec4(0.85, 0.05, 0.10, 1.0); return; }
  if (k == kUnchecked) { colour = vec4(0.337, 0.706, 0.914, 1.0); return; }
  if (k == kGuardIntact) { colour = vec4(0.45, 0.47, 0.52, 0.55); return; }
  if (k == kUnwritten) {
    ivec2 c = ivec2(gl_FragCoord.xy / checker);
    float v = ((c.x + c.y) & 1) == 0 ? 0.92 : 0.62;
    colour = vec4(v, v, v, 1.0);
    return;
  }
  colour = vec4(0.0);
}
