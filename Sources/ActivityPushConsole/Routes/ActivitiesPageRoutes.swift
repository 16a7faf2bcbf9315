extension ConsoleRoute {
    /// `GET /activities`: the activities page (the list; its script reads `GET /v1/activities`).
    static let activitiesPage = ConsoleRoute(.get, "/activities", operation: #"""
        { "summary": "The activities page (HTML): the Live Activities and their state", "operationId": "activitiesPage",
          "responses": { "200": { "description": "HTML", "content": { "text/html": { "schema": { "type": "string" } } } } } }
        """#) { _, _ in activitiesHTML() }

    /// `GET /activities/{id}`: the same page showing one activity's timeline (devices, pushes, outcomes).
    static let activityPage = ConsoleRoute(.get, "/activities/{id}", operation: #"""
        { "summary": "One activity's timeline (HTML): each device, each push and its outcome", "operationId": "activityPage",
          "responses": { "200": { "description": "HTML", "content": { "text/html": { "schema": { "type": "string" } } } } } }
        """#) { _, _ in activitiesHTML() }

    /// `GET /activities.js`: the activities page's script.
    static let activitiesScript = ConsoleRoute(.get, "/activities.js", operation: #"""
        { "summary": "The activities page's script", "operationId": "activitiesScript",
          "responses": { "200": { "description": "JavaScript", "content": { "text/javascript": { "schema": { "type": "string" } } } } } }
        """#) { _, _ in .text(200, ActivitiesScript.js, contentType: "text/javascript; charset=utf-8") }

    private static func activitiesHTML() -> HTTPResponse {
        var page = HTTPResponse.text(200, ActivitiesPage.html, contentType: "text/html; charset=utf-8")
        page.headers += PageSecurity.headers
        return page
    }
}
