extension ConsoleRoute {
    /// `GET /` (and `/index.html`): the console page, framed by nobody and loading only its own script and style.
    static let page = ConsoleRoute(.get, "/", operation: #"""
        { "summary": "The console page (HTML; its script and style at /console.js and /console.css)", "operationId": "page",
        "responses": { "200": { "description": "HTML", "content": { "text/html": { "schema": { "type": "string" } } } } } }
        """#) { _, _ in
        var page = HTTPResponse.text(200, ConsolePage.html, contentType: "text/html; charset=utf-8")
        page.headers += PageSecurity.headers
        return page
    }

    /// `GET /console.css`: the page's style.
    static let pageStyle = ConsoleRoute(.get, "/console.css", operation: #"""
        { "summary": "The page's style", "operationId": "pageStyle",
        "responses": { "200": { "description": "CSS", "content": { "text/css": { "schema": { "type": "string" } } } } } }
        """#) { _, _ in .text(200, ConsoleStyle.css, contentType: "text/css; charset=utf-8") }

    /// `GET /console.js`: the page's script.
    static let pageScript = ConsoleRoute(.get, "/console.js", operation: #"""
        { "summary": "The page's script", "operationId": "pageScript",
        "responses": { "200": { "description": "JavaScript", "content": { "text/javascript": { "schema": { "type": "string" } } } } } }
        """#) { _, _ in .text(200, ConsoleScript.js, contentType: "text/javascript; charset=utf-8") }
}
