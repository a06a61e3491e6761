// Light and dark: follows prefers-color-scheme unless the person picks one (kept in localStorage). The page's colors
// come from CSS (color-scheme + light-dark()); the terminal asks for its palette here.

export type ThemeChoice = "auto" | "light" | "dark";
export type Scheme = "light" | "dark";

const KEY = "sandshell:theme";
const ORDER: ThemeChoice[] = ["auto", "light", "dark"];
const media = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;
const listeners = new Set<(scheme: Scheme) => void>();

function stored(): ThemeChoice {
  // An embedding page's choice (`theme=light|dark|auto` in the URL, sandshell/embed's `theme`) wins.
  const asked = typeof location !== "undefined" ? new URLSearchParams(location.search).get("theme") : null;
  if (asked === "light" || asked === "dark" || asked === "auto") return asked;
  try {
    const v = localStorage.getItem(KEY);
    return v === "light" || v === "dark" ? v : "auto";
  } catch {
    return "auto";
  }
}

let choice: ThemeChoice = stored();

export function scheme(): Scheme {
  if (choice !== "auto") return choice;
  return media?.matches ? "dark" : "light";
}

function apply(): void {
  const root = document.documentElement;
  root.dataset.theme = choice;
  root.style.colorScheme = choice === "auto" ? "light dark" : choice;
  for (const l of [...listeners]) l(scheme());
}

export function onSchemeChange(listener: (scheme: Scheme) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function initTheme(): void {
  apply();
  media?.addEventListener("change", () => {
    if (choice === "auto") apply();
  });
}

const LABEL: Record<ThemeChoice, string> = { auto: "Theme: system", light: "Theme: light", dark: "Theme: dark" };
const ICON: Record<ThemeChoice, string> = { auto: "◐", light: "☀", dark: "☾" };

/** A button that cycles system → light → dark. */
export function themeButton(): HTMLButtonElement {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "ghost theme-toggle";
  const render = (): void => {
    button.textContent = `${ICON[choice]} ${LABEL[choice].replace("Theme: ", "")}`;
    button.setAttribute("aria-label", `${LABEL[choice]} (click to change)`);
    button.title = LABEL[choice];
  };
  button.addEventListener("click", () => {
    choice = ORDER[(ORDER.indexOf(choice) + 1) % ORDER.length]!;
    try {
      if (choice === "auto") localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, choice);
    } catch {
      // private mode: the choice lasts for this page
    }
    apply();
    render();
  });
  render();
  return button;
}
