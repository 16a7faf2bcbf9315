dependencies { implementation("com.eatthepath:pushy:0.15.4") }
