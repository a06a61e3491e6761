// Playground entry: URL parameters → layout (painted at once) → the sandbox, loaded lazily → the views and the API.
import "../ui/styles.css";
import { startApp } from "./app.ts";
import { parseParams } from "./params.ts";

const { params, problems } = parseParams(location.search);
window.sandshell = startApp(params, problems);
