/**
 * Lets a review page use the window's width (up to 120rem) inside the layout's narrower main column:
 * a side-by-side diff needs the room. Margins, not a transform, so fixed dialogs stay fixed.
 */
export const wideClass = "ml-[calc(50%_-_min(50vw_-_1.5rem,60rem))] w-[min(100vw_-_3rem,120rem)]";
