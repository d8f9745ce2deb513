export * from "./rooms";
export * from "./agents";
export * from "./canvas";
export * from "./events";
export * from "./participants";
export * from "./runs";
export * from "./board";
export * from "./broadcasts";
