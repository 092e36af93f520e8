#version 330 core
// One triangle that covers the viewport; the fragment shaders read the source texture at uv.
out vec2 uv;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  uv = vec2(p.x, 1.0 - p.y);  // row 0 of the data at the top of the picture
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
