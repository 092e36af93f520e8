#version 330 core
// One triangle that covers the viewport; the fragment shaders read the source texture at uv.
out vec2 uv;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  // Row 0 of the data goes to the bottom row of the target, which is the first row in memory:
  // ImGui::Image shows memory's first row at the top, so the data's row 0 appears at the top.
  uv = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
