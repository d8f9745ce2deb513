export * from "./entities";
export * from "./envelope";
export * from "./events";
export * from "./limits";
export * from "./board";
export * from "./runs";
export * from "./broadcasts";
export * from "./team";
