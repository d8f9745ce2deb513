import { type ReactElement, createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { type RoomStore, RoomStoreScope } from "@/components/room/room-store";

/**
 * A room component's markup as the page draws it from what `store` holds now (effects do not
 * run). A server render reads a store's initial state; here that is its current one, so the
 * events a test applied show.
 */
export function drawnInRoom(store: RoomStore, element: ReactElement): string {
  const current: RoomStore = { ...store, getInitialState: () => store.getState() };
  return renderToStaticMarkup(createElement(RoomStoreScope, { store: current, children: element }));
}

/** The markup of the first element carrying `data-testid="<testId>"`, up to its closing `</tag>`. */
export function elementByTestId(markup: string, testId: string, tag = "li"): string | null {
  const start = markup.indexOf(`data-testid="${testId}"`);
  if (start < 0) return null;
  const open = markup.lastIndexOf(`<${tag}`, start);
  const end = markup.indexOf(`</${tag}>`, start);
  return markup.slice(open, end + tag.length + 3);
}
